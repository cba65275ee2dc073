import { newId } from '@agent-warden/contracts';
import { FakeWarden } from './fake-warden';
import { captureLogger, Clients, testOptions } from './helpers';

let server: FakeWarden;
const clients = new Clients();

beforeEach(async () => {
  server = await new FakeWarden().start();
});
afterEach(async () => {
  await clients.shutdownAll();
  await server.stop();
  // Every event sent is checked against the contract (AgentEvent) by the fake service.
  expect(server.contractViolations).toEqual([]);
});

describe('score(...) (docs/architecture.md#scores)', () => {
  it('scores the run inside withRun and the session outside it, dataType from the value, source rule by default', async () => {
    const client = clients.make(testOptions(server));
    let runId = '';
    await client.withRun({ name: 'book' }, async (run) => {
      runId = run.runId;
      run.score({ name: 'reward', value: 0.5, comment: 'half the seats' });
      client.score({ name: 'tone', value: 'polite', source: 'evaluator' });
    });
    const id = client.score({ name: 'task_succeeded', value: false, source: 'human' });
    await client.flush();

    const scores = server.eventsOfType('agent.score.recorded');
    expect(scores.map((e) => [e.runId ?? null, e.data])).toEqual([
      [runId, { name: 'reward', value: 0.5, dataType: 'numeric', source: 'rule', comment: 'half the seats' }],
      [runId, { name: 'tone', value: 'polite', dataType: 'categorical', source: 'evaluator' }],
      [null, { name: 'task_succeeded', value: false, dataType: 'boolean', source: 'human' }],
    ]);
    expect(scores[2]!.id).toBe(id);
  });

  it('keeps a given scoreId and cuts long names, labels and comments to the contract limits', async () => {
    const client = clients.make(testOptions(server));
    const scoreId = newId();
    client.score({ name: 'n'.repeat(300), value: 'v'.repeat(300), comment: 'c'.repeat(3000), scoreId });
    await client.flush();
    const [e] = server.eventsOfType('agent.score.recorded');
    expect(e!.data).toMatchObject({ scoreId, dataType: 'categorical' });
    const data = e!.data as { name: string; value: string; comment: string };
    expect([data.name.length, data.value.length, data.comment.length]).toEqual([200, 200, 2000]);
  });

  it('sends nothing and logs an error for input that cannot be a score, and never throws', async () => {
    const logger = captureLogger();
    const client = clients.make(testOptions(server, { logger }));
    const bad = [
      { name: 'reward', value: Number.NaN },
      { name: 'reward', value: Infinity },
      { name: '', value: 1 },
      { name: 'label', value: '' },
      { name: 'x', value: { nested: true } as unknown as number },
      { name: 'x', value: 1, source: 'oracle' as 'rule' },
      { name: 'x', value: 1, scoreId: 'not-a-uuid' },
    ];
    for (const input of bad) expect(client.score(input)).toBe('');
    expect(client.score(null as never)).toBe('');
    await client.flush();
    expect(server.eventsOfType('agent.score.recorded')).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(bad.length + 1);
  });

  it('the disabled client accepts score() and sends nothing', async () => {
    const client = clients.make(testOptions(server, { enabled: false }));
    expect(client.score({ name: 'reward', value: 1 })).not.toBe('');
    await client.flush();
    expect(server.requests).toHaveLength(0);
  });
});
