import { BusUnavailableError, InMemoryBus, type EventBus } from '@agent-warden/bus';
import { TOPICS, type TopicMessage, type TopicName } from '@agent-warden/contracts';
import { AppError } from '@agent-warden/http';
import { silentLogger } from '@agent-warden/observability';
import {
  EvaluationRecorder,
  writeThroughSink,
  type EvaluationMessage,
} from '../src/guard/evaluation-recorder';

/**
 * A fake event log: keeps what it was given per publish call, fails while `down`, and lets a test
 * hold a publish open (`hold()` … `release()`).
 */
class FakeBus implements EventBus {
  readonly sends: { topic: TopicName; keys: string[] }[] = [];
  attempts = 0;
  down = false;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    this.attempts += 1;
    if (this.gate) await this.gate;
    if (this.down) throw new BusUnavailableError('down');
    this.sends.push({ topic, keys: messages.map((m) => m.key) });
  }
  keys(): string[] {
    return this.sends.flatMap((s) => s.keys);
  }
  async subscribe(): Promise<never> {
    throw new Error('not used');
  }
  isHealthy(): boolean {
    return !this.down;
  }
  async close(): Promise<void> {}
}

let n = 0;
function message(): EvaluationMessage {
  n += 1;
  const id = `eval-${String(n).padStart(5, '0')}`;
  return {
    key: id,
    value: {
      specversion: '1.0',
      id,
      source: '/projects/p/agents/a',
      type: 'warden.guardrail.evaluation.recorded',
      time: new Date(0).toISOString(),
      data: {
        evaluationId: id,
        projectId: 'p',
        agentId: 'a',
        agentVersionId: null,
        sessionId: null,
        runId: null,
        toolCallId: null,
        mode: 'monitor',
        policyDecision: 'allow',
        effectiveDecision: 'allow',
        matchedGuardrails: [],
        wouldBlock: false,
        wouldRequireApproval: false,
        dryRun: false,
        approvalId: null,
        input: {},
        evaluatedAt: new Date(0).toISOString(),
      },
    } as EvaluationMessage['value'],
  };
}

const recorder = (bus: EventBus, over: Partial<ConstructorParameters<typeof EvaluationRecorder>[1]> = {}) =>
  new EvaluationRecorder(bus, {
    capacity: 100,
    capacityBytes: 1_000_000,
    flushIntervalMs: 5,
    maxBatch: 10,
    retryDelayMs: 100,
    logger: silentLogger(),
    ...over,
  });

describe('EvaluationRecorder', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('records wait for the flush interval and go out together, on the evaluations topic, in order', async () => {
    const bus = new FakeBus();
    const r = recorder(bus);
    const ms = [message(), message(), message()];
    for (const m of ms) r.record(m);
    expect(bus.attempts).toBe(0); // record() never waits for the log
    await jest.advanceTimersByTimeAsync(5);
    expect(bus.sends).toEqual([{ topic: TOPICS.guardrailEvaluations, keys: ms.map((m) => m.key) }]);
    expect(r.stats()).toMatchObject({ buffered: 0, published: 3, rejected: 0 });
  });

  test('a full batch goes at once; larger bursts are split into batches of maxBatch', async () => {
    const bus = new FakeBus();
    const r = recorder(bus, { flushIntervalMs: 60_000 });
    const ms = Array.from({ length: 25 }, message);
    for (const m of ms) r.record(m);
    // 10 reached: published without waiting for the interval, then the next full batch.
    await jest.advanceTimersByTimeAsync(0);
    expect(bus.sends.map((s) => s.keys.length)).toEqual([10, 10]);
    // The 5 left wait for the interval.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(bus.sends.map((s) => s.keys.length)).toEqual([10, 10, 5]);
    expect(bus.keys()).toEqual(ms.map((m) => m.key));
  });

  test('records that arrive while a publish is in flight go in the next one', async () => {
    const bus = new FakeBus();
    const r = recorder(bus);
    const first = message();
    r.record(first);
    bus.hold();
    await jest.advanceTimersByTimeAsync(5);
    const later = [message(), message()];
    for (const m of later) r.record(m);
    expect(r.stats().buffered).toBe(3);
    bus.release();
    await jest.advanceTimersByTimeAsync(5);
    expect(bus.sends.map((s) => s.keys)).toEqual([[first.key], later.map((m) => m.key)]);
  });

  test('a failed publish keeps its records at the head of the buffer; retries deliver everything once, in order', async () => {
    const bus = new FakeBus();
    const r = recorder(bus);
    bus.down = true;
    const ms = Array.from({ length: 4 }, message);
    for (const m of ms.slice(0, 2)) r.record(m);
    await jest.advanceTimersByTimeAsync(5);
    expect(bus.attempts).toBe(1);
    for (const m of ms.slice(2)) r.record(m);
    await jest.advanceTimersByTimeAsync(100); // first retry, still down
    expect(bus.attempts).toBe(2);
    expect(r.stats()).toMatchObject({ buffered: 4, published: 0, failedFlushes: 2 });
    bus.down = false;
    await jest.advanceTimersByTimeAsync(200); // backoff doubled
    expect(bus.keys()).toEqual(ms.map((m) => m.key));
    expect(r.stats()).toMatchObject({ buffered: 0, published: 4 });
  });

  test('the buffer is bounded: when full, record() refuses with 503 event_log_unavailable and Retry-After', async () => {
    const bus = new FakeBus();
    const r = recorder(bus, { capacity: 20 });
    bus.down = true;
    for (let i = 0; i < 20; i++) r.record(message());
    expect(r.hasRoom()).toBe(false);
    let err: unknown;
    try {
      r.record(message());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      code: 'event_log_unavailable',
      status: 503,
      options: { retryAfterSeconds: 1 },
    });
    expect(r.stats()).toMatchObject({ buffered: 20, capacity: 20, rejected: 1 });
    // The log comes back: the buffer drains and records are taken again.
    bus.down = false;
    await jest.advanceTimersByTimeAsync(2_000);
    expect(r.stats()).toMatchObject({ buffered: 0, published: 20 });
    expect(r.hasRoom()).toBe(true);
    expect(() => r.record(message())).not.toThrow();
  });

  test('the buffer is bounded in bytes too; a record larger than the budget is taken only into an empty buffer', async () => {
    const bus = new FakeBus();
    const r = recorder(bus, { capacityBytes: 1_000 });
    bus.down = true;
    r.record(message(), 600);
    expect(() => r.record(message(), 600)).toThrow(
      expect.objectContaining({ code: 'event_log_unavailable' }),
    );
    r.record(message(), 400);
    expect(r.stats()).toMatchObject({ buffered: 2, bufferedBytes: 1_000, rejected: 1 });
    bus.down = false;
    await jest.advanceTimersByTimeAsync(2_000);
    expect(r.stats()).toMatchObject({ buffered: 0, bufferedBytes: 0, published: 2 });
    r.record(message(), 5_000);
    expect(r.stats()).toMatchObject({ buffered: 1, bufferedBytes: 5_000 });
  });

  test('close() publishes what is buffered (without waiting for the interval), then refuses new records', async () => {
    const bus = new FakeBus();
    const r = recorder(bus, { flushIntervalMs: 60_000 });
    const ms = Array.from({ length: 25 }, message);
    for (const m of ms) r.record(m);
    const stats = await r.close(5_000);
    expect(bus.keys()).toEqual(ms.map((m) => m.key));
    expect(stats).toMatchObject({ buffered: 0, published: 25, lost: 0 });
    expect(() => r.record(message())).toThrow(expect.objectContaining({ code: 'event_log_unavailable' }));
  });

  test('close() retries a failing log until its deadline, then counts what is left as lost', async () => {
    const bus = new FakeBus();
    const r = recorder(bus, { flushIntervalMs: 60_000 });
    bus.down = true;
    for (let i = 0; i < 3; i++) r.record(message());
    const closing = r.close(1_000);
    await jest.advanceTimersByTimeAsync(1_000);
    const stats = await closing;
    expect(bus.attempts).toBeGreaterThan(1);
    expect(stats).toMatchObject({ buffered: 3, published: 0, lost: 3 });
  });

  test('close() waits for the publish in flight and then sends the rest', async () => {
    const bus = new FakeBus();
    const r = recorder(bus);
    const first = message();
    r.record(first);
    bus.hold();
    await jest.advanceTimersByTimeAsync(5);
    const second = message();
    r.record(second);
    const closing = r.close(5_000);
    bus.release();
    const stats = await closing;
    expect(bus.sends.map((s) => s.keys)).toEqual([[first.key], [second.key]]);
    expect(stats).toMatchObject({ buffered: 0, published: 2, lost: 0 });
  });
});

describe('writeThroughSink', () => {
  test('resolves once the in-process bus delivered the record to its subscriber', async () => {
    const bus = new InMemoryBus(silentLogger());
    const seen: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: [TOPICS.guardrailEvaluations],
      handler: async (b) => {
        seen.push(...b.records.map((x) => x.key ?? ''));
      },
    });
    const m = message();
    await writeThroughSink(bus).record(m);
    expect(seen).toEqual([m.key]);
  });

  test('a log that cannot take the write becomes 503 event_log_unavailable', async () => {
    const bus = new FakeBus();
    bus.down = true;
    await expect(writeThroughSink(bus).record(message())).rejects.toMatchObject({
      code: 'event_log_unavailable',
      status: 503,
    });
  });
});
