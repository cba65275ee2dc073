import { isUuidV7 } from '@agent-warden/contracts';
import { AuthenticationError, WardenClient } from '../src';
import { FakeWarden, delay, waitFor } from './fake-warden';
import { captureLogger, Clients, testOptions } from './helpers';

let server: FakeWarden;
const clients = new Clients();

beforeEach(async () => {
  server = await new FakeWarden().start();
});
afterEach(async () => {
  await clients.shutdownAll();
  await server.stop();
  expect(server.contractViolations).toEqual([]);
});

describe('registration', () => {
  it('identifies at construction, then declares capabilities; ready() and the ids follow', async () => {
    server.identifyDelayMs = 50;
    const client = clients.make(
      testOptions(server, {
        capabilities: [{ name: 'sql.query', riskLevel: 'high' }, { name: 'email.send' }],
      }),
    );
    expect(client.agentId).toBeUndefined();
    expect(client.agentVersionId).toBeUndefined();
    await waitFor(() => server.requestsTo('/v1/agents/identify').length === 1);
    await client.ready();

    expect(client.agentId).toBe(server.agentId);
    expect(client.agentVersionId).toBe(server.agentVersionId);
    const [identify] = server.requestsTo('/v1/agents/identify');
    expect(identify!.headers.authorization).toBe('Bearer test-key');
    expect(identify!.body).toEqual({
      agent: { key: 'test-agent', name: 'Test agent' },
      version: { version: '1.0.0' },
    });
    const caps = server.requestsTo(/\/capabilities$/, 'PUT');
    expect(caps).toHaveLength(1);
    expect(caps[0]!.path).toBe(`/v1/agents/${server.agentId}/versions/${server.agentVersionId}/capabilities`);
    expect(caps[0]!.body).toEqual({
      capabilities: [{ name: 'sql.query', riskLevel: 'high' }, { name: 'email.send' }],
    });
    expect(caps[0]!.at).toBeGreaterThanOrEqual(identify!.at);
  });

  it('retries registration on 503 and sends no capabilities when none are given', async () => {
    server.fail('/v1/agents/identify', 503, 2);
    const client = clients.make(testOptions(server));
    await client.ready();
    expect(server.requestsTo('/v1/agents/identify')).toHaveLength(3);
    expect(server.requestsTo(/\/capabilities$/)).toHaveLength(0);
    expect(client.stats().retries).toBe(2);
  });

  it('ready() rejects with AuthenticationError on 401 and nothing throws into the agent', async () => {
    const logger = captureLogger();
    const client = clients.make(testOptions(server, { apiKey: 'wrong', logger }));
    await expect(client.ready()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client.ready()).rejects.toMatchObject({ code: 'authentication_failed', status: 401 });
    expect(server.requestsTo('/v1/agents/identify')).toHaveLength(1); // 4xx: no retry
    client.track('after-failure');
    const res = await client.flush();
    expect(res.failed).toBeGreaterThan(0);
    expect(logger.lines.some((l) => l.level === 'error' && l.message === 'warden registration failed')).toBe(
      true,
    );
  });

  it('fills agentId/agentVersionId of events made before registration finished', async () => {
    server.identifyDelayMs = 150;
    const client = clients.make(testOptions(server));
    client.track('early', { n: 1 });
    expect(client.agentId).toBeUndefined();
    const res = await client.flush();
    expect(res.sent).toBe(2); // session.started + custom
    for (const e of server.events) {
      expect(e.agentId).toBe(server.agentId);
      expect(e.agentVersionId).toBe(server.agentVersionId);
    }
  });
});

describe('queue and batching', () => {
  it('sends 60 events in posts of at most 25', async () => {
    const client = clients.make(testOptions(server));
    for (let i = 0; i < 60; i++) client.track('step', { i });
    await client.flush();
    const posts = server.requestsTo('/v1/events', 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const p of posts) expect((p.body as { events: unknown[] }).events.length).toBeLessThanOrEqual(25);
    expect(server.eventsOfType('agent.custom')).toHaveLength(60);
    expect(server.maxConcurrentEventPosts).toBe(1);
    expect(client.stats()).toMatchObject({ queued: 0, sent: 61, dropped: 0, failed: 0 });
  });

  it('drops the newest events when full and counts them', async () => {
    const logger = captureLogger();
    const client = clients.make(testOptions(server, { maxQueueSize: 10, maxBatchSize: 100, logger }));
    for (let i = 0; i < 15; i++) client.track('step', { i }); // 1 session.started + 15 custom
    expect(client.stats()).toMatchObject({ queued: 10, dropped: 6 });
    const res = await client.flush();
    expect(res).toMatchObject({ sent: 10, dropped: 6, failed: 0, queued: 0 });
    const kept = server.eventsOfType('agent.custom').map((e) => (e.data.data as { i: number }).i);
    expect(kept).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]); // the oldest are kept
    expect(logger.lines.some((l) => l.message === 'warden queue full, dropping new events')).toBe(true);
    expect((await client.flush()).dropped).toBe(0);
  });

  it('concurrent flush() calls share the flush loop and all see it finish', async () => {
    const client = clients.make(testOptions(server, { maxBatchSize: 5 }));
    await client.ready();
    for (let i = 0; i < 30; i++) client.track('x', { i });
    const results = await Promise.all([client.flush(), client.flush(), client.flush()]);
    expect(server.events).toHaveLength(31);
    expect(server.maxConcurrentEventPosts).toBe(1);
    expect(results[0]!.sent).toBe(31);
    for (const r of results) expect(r.queued).toBe(0);
  });
});

describe('flush triggers', () => {
  it('(a) flushes on the timer', async () => {
    const client = clients.make(testOptions(server, { flushIntervalMs: 30 }));
    client.track('tick');
    await waitFor(() => server.eventsOfType('agent.custom').length === 1, 2000);
  });

  it('flushes early when maxBatchSize events wait', async () => {
    const client = clients.make(testOptions(server, { maxBatchSize: 5 }));
    await client.ready();
    for (let i = 0; i < 5; i++) client.track('x', { i });
    await waitFor(() => server.events.length >= 5, 2000);
  });

  it('(b) flush() sends and reports', async () => {
    const client = clients.make(testOptions(server));
    client.track('a');
    client.trackAction({
      actionType: 'email.send',
      name: 'send welcome',
      riskLevel: 'low',
      details: { to: 'x@y.z' },
    });
    client.trackMessage({ role: 'user', content: 'hello' });
    expect(server.events).toHaveLength(0);
    expect(await client.flush()).toEqual({ sent: 4, rejected: 0, dropped: 0, failed: 0, queued: 0 });
    expect(server.events.map((e) => e.type)).toEqual([
      'agent.session.started',
      'agent.custom',
      'agent.action.performed',
      'agent.message.logged',
    ]);
    expect(server.eventsOfType('agent.action.performed')[0]!.data).toEqual({
      actionType: 'email.send',
      name: 'send welcome',
      riskLevel: 'low',
      details: { to: 'x@y.z' },
    });
  });

  it('(c) a completing run flushes before withRun returns or rethrows', async () => {
    const client = clients.make(testOptions(server));
    const value = await client.withRun({ name: 'ok-run', inputSummary: 'in' }, (run) => {
      run.outputSummary = 'out';
      return 42;
    });
    expect(value).toBe(42);
    const completed = server.eventsOfType('agent.run.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ status: 'succeeded', outputSummary: 'out' });
    expect(typeof completed[0]!.data.durationMs).toBe('number');

    await expect(
      client.withRun({ name: 'bad-run' }, async () => {
        throw new TypeError('kaput');
      }),
    ).rejects.toThrow('kaput');
    const failed = server.eventsOfType('agent.run.completed')[1]!;
    expect(failed.data).toMatchObject({ status: 'failed', error: { message: 'kaput', type: 'TypeError' } });

    await client.withRun({ name: 'cancelled-run' }, (run) => run.cancel());
    expect(server.eventsOfType('agent.run.completed')[2]!.data).toMatchObject({ status: 'cancelled' });
  });

  it('(d) shutdown sends the rest and stops the timer', async () => {
    const client = clients.make(testOptions(server, { flushIntervalMs: 20 }));
    client.track('before');
    const res = await client.shutdown();
    expect(res.queued).toBe(0);
    expect(server.eventsOfType('agent.custom')).toHaveLength(1);
    client.track('after');
    await delay(100);
    expect(server.eventsOfType('agent.custom')).toHaveLength(1); // no timer any more
    await client.flush();
    expect(server.eventsOfType('agent.custom')).toHaveLength(2);
  });
});

describe('runs, sessions and sequences', () => {
  it('emits session.started lazily with the first run and attaches withTool to the current run', async () => {
    const client = clients.make(testOptions(server));
    await client.withRun({ name: 'r1', attributes: { user: 'u1' } }, async (run) => {
      expect(isUuidV7(run.runId)).toBe(true);
      await client.withTool({ name: 'lookup', arguments: { q: 'x' }, guard: false }, () => 'found');
      await delay(1);
      await run.withTool({ name: 'lookup2', guard: false }, async () => ({ rows: 2 }));
    });
    const types = server.events.map((e) => e.type);
    expect(types).toEqual([
      'agent.session.started',
      'agent.run.started',
      'agent.tool.started',
      'agent.tool.completed',
      'agent.tool.started',
      'agent.tool.completed',
      'agent.run.completed',
    ]);
    const runId = server.events[1]!.runId;
    for (const e of server.events.slice(1)) expect(e.runId).toBe(runId);
    expect(server.events[0]!.runId).toBeUndefined();
    const started = server.eventsOfType('agent.tool.started')[0];
    const completed = server.eventsOfType('agent.tool.completed')[0];
    expect(started!.data).toMatchObject({ toolName: 'lookup', arguments: { q: 'x' } });
    expect(completed!.data).toMatchObject({
      toolName: 'lookup',
      result: 'found',
      toolCallId: started!.data.toolCallId,
    });
    expect(completed!.parentId).toBe(started!.id);
  });

  it('idFactory makes every id the client chooses, so two runs of the same work send the same ids', async () => {
    const work = async () => {
      let n = 0;
      // A deterministic UUIDv7 sequence: time field fixed, the counter in the last bytes.
      const idFactory = () => `01900000-0000-7000-8000-${(++n).toString(16).padStart(12, '0')}`;
      const client = clients.make({ ...testOptions(server), idFactory });
      client.startSession({ inputSummary: 'same work' });
      await client.withRun({ name: 'r' }, async () => {
        client.trackMessage({ role: 'user', content: 'hi' });
        await client.withTool({ name: 'lookup', guard: false }, () => 'found');
      });
      client.endSession();
      await client.flush();
      return server.events.splice(0).map((e) => ({
        id: e.id,
        runId: e.runId,
        sessionId: e.sessionId,
        toolCallId: (e.data as { toolCallId?: string }).toolCallId,
      }));
    };
    const first = await work();
    const second = await work();
    expect(first.length).toBe(7);
    expect(second).toEqual(first);
    expect(new Set(first.map((e) => e.id)).size).toBe(first.length);
    for (const e of first) expect(isUuidV7(e.id)).toBe(true);
    expect(first[0]!.sessionId).toBe('01900000-0000-7000-8000-000000000001');
  });

  it('clock gives every event its time and measures durations (tools, runs) on it', async () => {
    let now = Date.parse('2024-03-01T10:00:00.000Z');
    const client = clients.make({ ...testOptions(server), clock: () => now });
    client.startSession({ inputSummary: 'replayed' });
    await client.withRun({ name: 'r' }, async () => {
      now += 1500;
      client.trackMessage({ role: 'user', content: 'hi' });
      await client.withTool({ name: 'lookup', guard: false }, () => {
        now += 2250.5;
        return 'found';
      });
      await client
        .withTool({ name: 'lookup', guard: false }, () => {
          now += 40;
          throw new Error('down');
        })
        .catch(() => undefined);
    });
    client.endSession();
    await client.flush();
    const byType = (t: string) => server.events.filter((e) => e.type === t);
    expect(server.events.map((e) => [e.type, e.time])).toEqual([
      ['agent.session.started', '2024-03-01T10:00:00.000Z'],
      ['agent.run.started', '2024-03-01T10:00:00.000Z'],
      ['agent.message.logged', '2024-03-01T10:00:01.500Z'],
      ['agent.tool.started', '2024-03-01T10:00:01.500Z'],
      ['agent.tool.completed', '2024-03-01T10:00:03.750Z'],
      ['agent.tool.started', '2024-03-01T10:00:03.750Z'],
      ['agent.tool.failed', '2024-03-01T10:00:03.790Z'],
      ['agent.run.completed', '2024-03-01T10:00:03.790Z'],
      ['agent.session.ended', '2024-03-01T10:00:03.790Z'],
    ]);
    expect(byType('agent.tool.completed')[0]!.data).toMatchObject({ durationMs: 2250.5 });
    expect(byType('agent.tool.failed')[0]!.data).toMatchObject({ durationMs: 40 });
    expect(byType('agent.run.completed')[0]!.data).toMatchObject({ durationMs: 3790.5 });
  });

  it('a clock that is not a function is a ConfigurationError naming it', () => {
    expect(() => new WardenClient({ ...testOptions(server), clock: 5 as unknown as () => number })).toThrow(
      /clock/,
    );
  });

  it('numbers events 1..n per session with no gaps, and a new session starts at 1', async () => {
    const client = clients.make(testOptions(server));
    const first = client.startSession({ inputSummary: 'first' });
    await client.withRun({}, async () => {
      client.track('a');
      await Promise.all([
        client.withTool({ name: 't1', guard: false }, () => 1),
        client.withTool({ name: 't2', guard: false }, () => 2),
      ]);
    });
    client.endSession({ outputSummary: 'done' });
    const second = client.sessionId;
    expect(second).not.toBe(first);
    client.track('b');
    await client.flush();

    const bySession = (id: string) => server.events.filter((e) => e.sessionId === id).map((e) => e.sequence);
    const seq1 = bySession(first);
    expect(seq1).toEqual(seq1.map((_, i) => i + 1));
    expect(seq1.length).toBe(9);
    expect(bySession(second)).toEqual([1, 2]);
    expect(server.eventsOfType('agent.session.started')[0]!.data).toEqual({ inputSummary: 'first' });
    expect(server.eventsOfType('agent.session.ended')[0]!.data).toEqual({
      status: 'completed',
      outputSummary: 'done',
    });
    const ids = server.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every(isUuidV7)).toBe(true);
  });

  it('records replayed tool calls with their logged result or error', async () => {
    const client = clients.make(testOptions(server));
    const logged = [
      { name: 'search', arguments: { q: 'a' }, result: { hits: 3 } },
      { name: 'pay', arguments: { amount: 5 }, error: 'card declined' },
    ];
    await client.withRun({ name: 'replay' }, async () => {
      for (const call of logged) {
        await client
          .withTool({ name: call.name, arguments: call.arguments, guard: false }, () => {
            if (call.error) throw new Error(call.error);
            return call.result;
          })
          .catch(() => undefined);
      }
      client.recordTool({ name: 'known', result: 'ok', durationMs: 12 });
      client.recordTool({ name: 'known-bad', error: { message: 'nope', type: 'HttpError' }, durationMs: 3 });
    });
    const failed = server.eventsOfType('agent.tool.failed').map((e) => e.data);
    expect(failed).toEqual([
      expect.objectContaining({ toolName: 'pay', error: { message: 'card declined', type: 'Error' } }),
      expect.objectContaining({
        toolName: 'known-bad',
        error: { message: 'nope', type: 'HttpError' },
        durationMs: 3,
      }),
    ]);
    const done = server.eventsOfType('agent.tool.completed').map((e) => e.data);
    expect(done).toEqual([
      expect.objectContaining({ toolName: 'search', result: { hits: 3 } }),
      expect.objectContaining({ toolName: 'known', result: 'ok', durationMs: 12 }),
    ]);
  });

  it('serialises awkward tool results safely', async () => {
    const client = clients.make(testOptions(server));
    const cyclic: Record<string, unknown> = { big: 10n, when: new Date(0), fn: function named() {} };
    cyclic.self = cyclic;
    await client.withTool({ name: 'odd', guard: false }, () => cyclic);
    await client.withTool({ name: 'huge', guard: false }, () => 'x'.repeat(200_000));
    await client.flush();
    const [odd, huge] = server.eventsOfType('agent.tool.completed');
    expect(odd!.data.result).toEqual({
      big: '10',
      when: '1970-01-01T00:00:00.000Z',
      fn: '[Function named]',
      self: '[Circular]',
    });
    expect(huge!.data.result).toMatchObject({ truncated: true, originalChars: 200_002 });
  });
});

describe('failures never reach the agent', () => {
  it('track*/withRun/flush/shutdown do not throw when the service is down', async () => {
    const url = server.url;
    await server.stop();
    const logger = captureLogger();
    const client = clients.make(testOptions({ url }, { logger, maxRetries: 1 }));
    await expect(client.ready()).rejects.toMatchObject({ code: 'connection_failed' });
    expect(() => client.track('x', { a: 1 })).not.toThrow();
    expect(() => client.trackMessage({ role: 'assistant', content: 'hi' })).not.toThrow();
    await expect(client.withRun({ name: 'r' }, () => 'ok')).resolves.toBe('ok');
    const res = await client.flush();
    expect(res.sent).toBe(0);
    expect(res.queued).toBeGreaterThan(0);
    expect(res.error?.retryable).toBe(true);
    const down = await client.shutdown();
    expect(down.queued).toBe(res.queued);
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
  });

  it('keeps events at the front of the queue after a failed flush and sends them later with the same ids', async () => {
    const client = clients.make(testOptions(server, { maxRetries: 1 }));
    await client.ready();
    client.track('first');
    server.fail('/v1/events', 503, 2);
    const failed = await client.flush();
    expect(failed).toMatchObject({ sent: 0, queued: 2, failed: 0 });
    const attempted = server
      .requestsTo('/v1/events')
      .map((r) => (r.body as { events: Array<{ id: string }> }).events.map((e) => e.id));
    expect(attempted[0]).toEqual(attempted[1]);
    client.track('second');
    const ok = await client.flush();
    expect(ok).toMatchObject({ sent: 3, queued: 0 });
    expect(server.events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(server.events.slice(0, 2).map((e) => e.id)).toEqual(attempted[0]);
  });

  it('does not retry a batch refused with 400 and counts it as failed', async () => {
    const client = clients.make(testOptions(server));
    await client.ready();
    client.track('a');
    client.track('b');
    server.fail('/v1/events', 400, 1);
    const res = await client.flush();
    expect(res).toMatchObject({
      sent: 0,
      failed: 3,
      queued: 0,
      error: { code: 'validation_failed', retryable: false },
    });
    expect(server.requestsTo('/v1/events')).toHaveLength(1);
    expect(client.stats()).toMatchObject({ failed: 3, retries: 0 });
    client.track('c');
    expect(await client.flush()).toMatchObject({ sent: 1, failed: 0 });
  });

  it('retries a 503 batch after Retry-After and sends the same ids once', async () => {
    const client = clients.make(testOptions(server));
    await client.ready();
    client.track('a');
    server.fail('/v1/events', 503, 1, { 'retry-after': '0.2' });
    const res = await client.flush();
    expect(res).toMatchObject({ sent: 2, failed: 0, queued: 0 });
    const [first, second] = server.requestsTo('/v1/events');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(150);
    expect(second!.body).toEqual(first!.body);
    expect(server.events).toHaveLength(2);
    expect(client.stats().retries).toBe(1);
  });

  it('counts events refused one by one as rejected and logs them', async () => {
    const logger = captureLogger();
    const client = clients.make(testOptions(server, { logger }));
    await client.ready();
    const id = client.track('bad');
    server.rejectIds.add(id);
    const res = await client.flush();
    expect(res).toMatchObject({ sent: 1, rejected: 1 });
    expect(client.stats().rejected).toBe(1);
    expect(logger.lines.find((l) => l.message === 'warden event rejected')?.fields).toMatchObject({
      eventId: id,
    });
  });
});

describe('disabled client', () => {
  it('has the same API, synthetic ids, runs callbacks and sends nothing', async () => {
    const fetchSpy = jest.fn(globalThis.fetch);
    const client = new WardenClient({ enabled: false, fetch: fetchSpy, mode: 'enforce' });
    expect(client.enabled).toBe(false);
    await client.ready();
    expect(client.agentId).toBe('disabled-agent');
    expect(client.agentVersionId).toBe('disabled-version');
    const out = await client.withRun({ name: 'r' }, async (run) => {
      run.track('x');
      return client.withTool({ name: 'rm -rf', riskLevel: 'critical' }, () => 'ran');
    });
    expect(out).toBe('ran');
    expect((await client.guard({ tool: { name: 't' } })).effectiveDecision).toBe('allow');
    client.trackMessage({ role: 'user', content: 'x' });
    expect(await client.flush()).toEqual({ sent: 0, rejected: 0, dropped: 0, failed: 0, queued: 0 });
    await client.shutdown();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('is disabled by WARDEN_ENABLED=false without other settings', () => {
    process.env.WARDEN_ENABLED = 'false';
    try {
      const client = new WardenClient();
      expect(client.enabled).toBe(false);
    } finally {
      delete process.env.WARDEN_ENABLED;
    }
  });
});
