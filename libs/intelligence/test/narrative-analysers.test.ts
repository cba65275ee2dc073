import type { IntelligenceDraft } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { analyseSession, createNarrator, type NarrativeFacts } from '../src';
import { FOREIGN_ID } from './narrative-fixtures';
import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from './narrative-server';
import {
  loadTrajectories,
  sequentialIds,
  TRAJECTORY_FILES,
  trajectoryToInput,
} from './support/trajectory-input';

/**
 * The narrative on the analysers' real output: a fake model that narrates every moment it is sent
 * (citing the moment's ids plus one foreign id), on one real session of each shared source.
 */
describe('LLM narrative on analyseSession output of shared trajectories', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.answer = (body) => {
      const messages = body.messages as { role: string; content: string }[];
      const facts = JSON.parse(messages[1]!.content.slice('FACTS:\n'.length)) as NarrativeFacts;
      const reply = {
        summary: `Narrated: ${facts.figures.toolCalls} tool calls, outcome ${facts.outcome.status}.`,
        moments: facts.moments.map((m) => ({
          index: m.index,
          text: `Narrated moment ${m.index} (${m.kind}).`,
          eventIds: [...m.eventIds, FOREIGN_ID],
        })),
      };
      return { kind: 'json', status: 200, body: chatCompletion(String(body.model), JSON.stringify(reply)) };
    };
  });
  afterAll(async () => {
    await fake.close();
  });

  const cited = (d: IntelligenceDraft) => [
    ...d.story.flatMap((m) => m.eventIds),
    ...d.actionItems.flatMap((a) => a.evidenceEventIds),
    ...d.recommendations.flatMap((r) => r.evidenceEventIds),
  ];

  it.each(TRAJECTORY_FILES)(
    '%s: every text narrated, nothing but texts changed, every cited id in the session',
    async (file) => {
      // The first trajectory of the file with an action item (or the first one).
      const inputs = loadTrajectories(file)
        .slice(0, 50)
        .map((t) => trajectoryToInput(t, { ids: sequentialIds() }));
      const input = inputs.find((i) => analyseSession(i).actionItems.length > 0) ?? inputs[0]!;
      const draft = analyseSession(input);
      const narrator = createNarrator(
        { apiKey: 'sk-test', baseUrl: fake.baseUrl, model: 'echo', maxRetries: 0 },
        silentLogger(),
      )!;

      const out = await narrator.write(draft, input);

      expect(out.generator).toBe('llm:echo');
      expect(out.summary.text).toBe(
        `Narrated: ${draft.summary.figures.toolCalls} tool calls, outcome ${draft.summary.outcome.status}.`,
      );
      expect(out.story.map((m) => m.text)).toEqual(
        draft.story.map((m, i) => `Narrated moment ${i} (${m.kind}).`),
      );
      expect({ ...out.summary, text: '' }).toEqual({ ...draft.summary, text: '' });
      expect(out.story.map((m) => ({ ...m, text: '' }))).toEqual(
        draft.story.map((m) => ({ ...m, text: '' })),
      );
      expect(out.actionItems).toEqual(draft.actionItems);
      expect(out.recommendations).toEqual(draft.recommendations);
      const sessionIds = new Set(input.events.map((e) => e.id));
      expect(cited(out).filter((id) => !sessionIds.has(id))).toEqual([]);
    },
  );
});
