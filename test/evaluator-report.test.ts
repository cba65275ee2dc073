import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from '../libs/intelligence/test/narrative-server';
import { loadTrajectories } from '../libs/intelligence/test/support/trajectory-input';
import { evaluatorReport } from '../scripts/evaluator-report';

/**
 * `npm run intelligence:evaluate` (scripts/evaluator-report.ts) against a local OpenAI-compatible
 * server with a scripted judge: it judges the first tau-bench sessions, counts failed and succeeded
 * ones against the labels, lists the failures for the hand check, and never sends the model a label
 * or the simulated user's hidden scenario.
 */
describe('the evaluator report', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // The scripted judge: a session with a tool call failed (citing the call), one without achieved.
    fake.answer = (body) => {
      const messages = body.messages as { role: string; content: string }[];
      const call = /^\[(\d+)\] call /m.exec(messages.find((m) => m.role === 'user')!.content);
      const reply = call
        ? {
            verdict: 'failed',
            reason: 'r',
            causes: [{ kind: 'wrong_value', explanation: 'The first call.', entries: [Number(call[1])] }],
          }
        : { verdict: 'achieved', reason: 'r', causes: [] };
      return { kind: 'json', status: 200, body: chatCompletion('m', JSON.stringify(reply)) };
    };
  });
  afterAll(async () => {
    await fake.close();
  });

  it('counts the judged tau-bench sessions against their rewards and lists the failures', async () => {
    const first = loadTrajectories('tau_bench_airline.jsonl').slice(0, 8);
    const report = await evaluatorReport({
      config: { baseUrl: fake.baseUrl, model: 'm', maxRetries: 0 },
      sources: ['tau-bench'],
      limit: 8,
      concurrency: 2,
    });
    const hasCall = (t: (typeof first)[number]) => t.steps.some((s) => s.kind === 'tool_call');
    const reward = (t: (typeof first)[number]) => (t.labels as { reward: number }).reward;
    const failed = first.filter((t) => reward(t) === 0);
    const ok = first.filter((t) => reward(t) === 1);
    const judgedFailed = first.filter(hasCall).length;
    expect(report).toContain(
      `| tau-bench | 8 | ${8 - judgedFailed} | ${judgedFailed} | 0 | 0 | ${judgedFailed} |`,
    );
    expect(report).toContain(
      `failed sessions (reward 0) with a cause from the model: **${failed.filter(hasCall).length} of ${failed.length}`,
    );
    expect(report).toContain(
      `succeeded sessions (reward 1) judged failed: **${ok.filter(hasCall).length} of ${ok.length}`,
    );
    for (const t of failed)
      expect(report).toContain(`| \`${t.trajectory_id.replace(/^.*\/(task_\d+\/trial_\d+)$/, '$1')}\` |`);

    // The model got 8 transcripts, none with the hidden scenario or a label.
    expect(fake.requests).toHaveLength(8);
    const sent = fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
    for (const t of first) expect(sent).not.toContain(JSON.stringify(t.task).slice(1, 80));
    expect(sent).not.toMatch(/"reward"|expected_actions|task_succeeded/);
  });
});
