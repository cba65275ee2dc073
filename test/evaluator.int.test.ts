import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from '../libs/intelligence/test/narrative-server';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORIES_DIR, readTrajectoryLines, type Trajectory } from '../scripts/replay/trajectories';
import { call, waitFor } from './support/http';
import { startStandaloneOnPostgres, type StandaloneOnPostgres } from './support/standalone-on-postgres';

const MODEL = 'judge-test-model';

/**
 * The model evaluator in the running service (docs/intelligence.md "The model evaluator"): `npm
 * start`'s process on PostgreSQL with `WARDEN_LLM_EVALUATOR=on`, its model a local
 * OpenAI-compatible server started by the test that answers with a scripted verdict (the narrative,
 * which the same endpoint turns on, gets an error and keeps its deterministic texts). A real
 * tau-bench trajectory is replayed; its stored intelligence and scores are read back through the
 * API. The line is picked from ../shared/data/trajectories at run time into a temporary file.
 */
describe('the model evaluator: items and a score stored with the intelligence', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-evaluator-'));
  const file = path.join(dir, 'one.jsonl');
  const apiKey = `aw_evaluator_${newId().replace(/-/g, '')}`;
  let fake: FakeOpenAI;
  let s: StandaloneOnPostgres | undefined;
  let trajectory: Trajectory | undefined;
  let sessionId: string;
  /** The transcripts the evaluator sent, in order. */
  const transcripts: string[] = [];
  let evaluatorUp = true;

  beforeAll(async () => {
    for await (const { trajectory: t } of readTrajectoryLines(
      path.join(TRAJECTORIES_DIR, 'tau_bench_airline.jsonl'),
    )) {
      if (t.steps.some((x) => x.kind === 'tool_call')) {
        trajectory = t;
        break;
      }
    }
    if (!trajectory) throw new Error('no tau-bench trajectory with a tool call');
    fs.writeFileSync(file, `${JSON.stringify(trajectory)}\n`);

    fake = await startFakeOpenAI();
    fake.answer = (body) => {
      const format = body.response_format as { json_schema?: { name?: string } } | undefined;
      if (format?.json_schema?.name !== 'session_evaluation' || !evaluatorUp)
        return {
          kind: 'json',
          status: 400,
          body: { error: { message: 'not here', type: 'invalid_request_error' } },
        };
      const messages = body.messages as { role: string; content: string }[];
      const transcript = messages.find((m) => m.role === 'user')!.content;
      transcripts.push(transcript);
      // The scripted judge blames the first tool call.
      const ref = Number(/^\[(\d+)\] call /m.exec(transcript)![1]);
      const reply = {
        verdict: 'failed',
        reason: 'The scripted judge says the first call used the wrong value.',
        causes: [
          {
            kind: 'wrong_value',
            explanation: 'The first call used another value than asked.',
            entries: [ref],
          },
        ],
      };
      return { kind: 'json', status: 200, body: chatCompletion(MODEL, JSON.stringify(reply)) };
    };
    s = await startStandaloneOnPostgres(dir, apiKey, {
      WARDEN_LLM_EVALUATOR: 'on',
      OPENAI_BASE_URL: fake.baseUrl,
      WARDEN_LLM_MODEL: MODEL,
      WARDEN_LLM_MAX_RETRIES: '0',
    });
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    await fake?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const get = (p: string) => call(s!.url, 'GET', p, { apiKey });
  const evaluatorScores = async () =>
    (await get(`/v1/sessions/${sessionId}/scores`)).body.items.filter(
      (x: { source: string }) => x.source === 'evaluator',
    );

  test('the judged cause cites the first call, and the verdict is a goal_achieved score', async () => {
    const summary = await replayFiles({ files: [file], baseUrl: s!.url, apiKey, concurrency: 1 });
    expect(summary).toMatchObject({ trajectories: 1, missing: 0, incomplete: 0 });
    const [row] = await s!.prisma.$queryRaw<{ session_id: string }[]>`
      SELECT session_id::text FROM runs WHERE name = ${trajectory!.trajectory_id}`;
    sessionId = row!.session_id;

    const intel = await waitFor(async () => {
      const r = await get(`/v1/sessions/${sessionId}/intelligence`);
      return r.status === 200 && r.body;
    }, 60_000);
    const judged = intel.actionItems.filter((a: { kind: string }) => a.kind === 'evaluator_failure_cause');
    expect(judged).toHaveLength(1);
    expect(judged[0]).toMatchObject({ severity: 'high' });
    expect(judged[0].detail).toContain('The first call used another value than asked.');
    // Its evidence is the first tool call's events.
    const firstCall = trajectory!.steps.find((x) => x.kind === 'tool_call')!;
    const cited = await s!.prisma.$queryRaw<{ type: string; tool: string | null }[]>`
      SELECT type, data->>'toolName' AS tool FROM events
      WHERE session_id = ${sessionId}::uuid AND id::text = ANY(${judged[0].evidenceEventIds}::text[])`;
    expect(cited.length).toBe(judged[0].evidenceEventIds.length);
    expect(cited).toEqual(expect.arrayContaining([{ type: 'agent.tool.started', tool: firstCall.tool }]));
    // The narrative's call failed: the texts stay deterministic.
    expect(intel.generator).toBe('deterministic');

    const scores = await evaluatorScores();
    expect(scores).toEqual([
      expect.objectContaining({
        name: 'goal_achieved',
        value: false,
        dataType: 'boolean',
        author: `evaluator:llm:${MODEL}`,
        comment: 'The scripted judge says the first call used the wrong value.',
        runId: null,
      }),
    ]);
    // What the model read: the session's own messages and calls, numbered.
    expect(transcripts[0]).toMatch(/^TRANSCRIPT:\n\[1\] user: /);
  }, 120_000);

  test('analysed again in the same state: a new version, no second score; with the model down, no item and no score', async () => {
    const regenerate = async (version: number) => {
      expect((await call(s!.url, 'POST', `/v1/sessions/${sessionId}/intelligence`, { apiKey })).status).toBe(
        202,
      );
      return waitFor(async () => {
        const r = await get(`/v1/sessions/${sessionId}/intelligence`);
        return r.status === 200 && r.body.version === version && r.body;
      }, 60_000);
    };
    const v2 = await regenerate(2);
    expect(v2.actionItems.map((a: { kind: string }) => a.kind)).toContain('evaluator_failure_cause');
    expect(transcripts).toHaveLength(2);
    expect(await evaluatorScores()).toHaveLength(1);

    evaluatorUp = false;
    const v3 = await regenerate(3);
    expect(v3.actionItems.map((a: { kind: string }) => a.kind)).not.toContain('evaluator_failure_cause');
    expect(await evaluatorScores()).toHaveLength(1);
  }, 120_000);
});
