import { QUEUES, type QueuePayloads } from '@agent-warden/contracts';
import { InvalidJobOptionsError, QueueUnavailableError, type JobInfo, type JobQueue } from '../src';

/** One queue under test, and how to wipe what it left behind. */
export interface QueueHarness {
  queue: JobQueue;
  cleanup?: () => Promise<void>;
}

type SessionReady = QueuePayloads['session-ready'];
const Q = QUEUES.sessionReady;

export const payload = (sessionId: string, reason: SessionReady['reason'] = 'ended'): SessionReady => ({
  projectId: 'proj-1',
  sessionId,
  reason,
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it is true; fails after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 3_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

interface Call {
  payload: SessionReady;
  job: JobInfo;
  at: number;
}

/**
 * The behaviour every {@link JobQueue} implementation must have (docs/architecture.md#two-ways-to-run:
 * nothing above the queue knows which one runs). `factory` gives a fresh, isolated queue per test.
 */
export function describeJobQueueContract(label: string, factory: () => Promise<QueueHarness>): void {
  describe(`${label}: JobQueue contract`, () => {
    let harness: QueueHarness;
    let queue: JobQueue;
    let calls: Call[];
    const record = async (p: SessionReady, job: JobInfo) => {
      calls.push({ payload: p, job, at: Date.now() });
    };

    beforeEach(async () => {
      harness = await factory();
      queue = harness.queue;
      calls = [];
    });
    afterEach(async () => {
      await queue.close();
      await harness.cleanup?.();
    });

    it('processes a job with its payload and counts it as completed', async () => {
      await queue.process(Q, record);
      const id = await queue.enqueue(Q, payload('s-1'));
      await waitFor(() => calls.length === 1, 3_000, 'the job');
      expect(calls[0]!.payload).toEqual(payload('s-1'));
      expect(calls[0]!.job).toEqual({ id, attempt: 1 });
      await waitFor(async () => (await queue.counts(Q)).completed === 1, 1_000, 'completed count');
      expect(await queue.counts(Q)).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 1, failed: 0 });
    });

    it('runs a delayed job no earlier than delayMs', async () => {
      await queue.process(Q, record);
      const t0 = Date.now();
      // Long enough that a loaded machine does not promote the job before it is counted as delayed.
      await queue.enqueue(Q, payload('s-1'), { delayMs: 1_000 });
      expect((await queue.counts(Q)).delayed).toBe(1);
      await waitFor(() => calls.length === 1, 5_000, 'the delayed job');
      expect(calls[0]!.at - t0).toBeGreaterThanOrEqual(995);
    });

    it('debounces: many enqueues with one key give one job with the last payload, delayMs after the last enqueue', async () => {
      await queue.process(Q, record);
      const delayMs = 200;
      const reasons: SessionReady['reason'][] = ['quiet', 'late_event', 'quiet', 'late_event', 'ended'];
      const t0 = Date.now();
      let tLast = t0;
      for (const reason of reasons) {
        tLast = Date.now();
        await queue.enqueue(Q, payload('s-1', reason), { delayMs, debounceKey: 'proj-1:s-1' });
        await sleep(25);
      }
      const pending = await queue.counts(Q);
      expect(pending.delayed).toBe(1);
      expect(pending.waiting + pending.active + pending.completed).toBe(0);

      await waitFor(() => calls.length >= 1, 3_000, 'the debounced job');
      await sleep(delayMs + 100); // nothing else may come
      expect(calls).toHaveLength(1);
      expect(calls[0]!.payload).toEqual(payload('s-1', 'ended'));
      const afterLast = calls[0]!.at - tLast;
      expect(afterLast).toBeGreaterThanOrEqual(delayMs - 5);
      expect(afterLast).toBeLessThan(delayMs + 250);
      // pushed back: far later than delayMs after the first enqueue
      expect(calls[0]!.at - t0).toBeGreaterThanOrEqual(delayMs + 4 * 25 - 5);
      expect(await queue.counts(Q)).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 1, failed: 0 });
    });

    it('gives different debounce keys different jobs', async () => {
      await queue.process(Q, record);
      const steps: [string, SessionReady['reason']][] = [
        ['s-a', 'quiet'],
        ['s-b', 'quiet'],
        ['s-a', 'late_event'],
        ['s-b', 'ended'],
        ['s-a', 'manual'],
      ];
      for (const [s, reason] of steps)
        await queue.enqueue(Q, payload(s, reason), { delayMs: 100, debounceKey: `proj-1:${s}` });
      await waitFor(() => calls.length === 2, 3_000, 'two jobs');
      await sleep(200);
      expect(calls).toHaveLength(2);
      const bySession = Object.fromEntries(calls.map((c) => [c.payload.sessionId, c.payload.reason]));
      expect(bySession).toEqual({ 's-a': 'manual', 's-b': 'ended' });
      expect(new Set(calls.map((c) => c.job.id)).size).toBe(2);
    });

    it('drops the job still waiting out its delay under a debounce key, and only that one', async () => {
      await queue.process(Q, record);
      await queue.enqueue(Q, payload('s-a', 'quiet'), { delayMs: 300, debounceKey: 'proj-1:s-a' });
      await queue.enqueue(Q, payload('s-b', 'quiet'), { delayMs: 300, debounceKey: 'proj-1:s-b' });
      expect(await queue.dropPending(Q, 'proj-1:s-a')).toBe(true);
      expect(await queue.dropPending(Q, 'proj-1:s-a')).toBe(false);
      expect(await queue.dropPending(Q, 'proj-1:unknown')).toBe(false);
      await waitFor(() => calls.length === 1, 3_000, 'the job that stayed');
      await sleep(400);
      expect(calls.map((c) => c.payload.sessionId)).toEqual(['s-b']);
      // The key is free again: a new enqueue schedules a new job.
      await queue.enqueue(Q, payload('s-a', 'late_event'), { delayMs: 50, debounceKey: 'proj-1:s-a' });
      await waitFor(() => calls.length === 2, 3_000, 'the new job of the dropped key');
      expect(calls[1]!.payload).toEqual(payload('s-a', 'late_event'));
    });

    it('schedules a new job when the key is enqueued again while its job is running', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      await queue.process(
        Q,
        async (p, job) => {
          await record(p, job);
          if (calls.length === 1) await gate;
        },
        { concurrency: 2 },
      );
      await queue.enqueue(Q, payload('s-1', 'quiet'), { delayMs: 50, debounceKey: 'k' });
      await waitFor(() => calls.length === 1, 3_000, 'the first job to start');
      await queue.enqueue(Q, payload('s-1', 'late_event'), { delayMs: 50, debounceKey: 'k' });
      await waitFor(() => calls.length === 2, 3_000, 'the second job');
      release();
      expect(calls.map((c) => c.payload.reason)).toEqual(['quiet', 'late_event']);
      expect(calls[0]!.job.id).not.toBe(calls[1]!.job.id);
    });

    it('ignores an enqueue whose jobId is already known', async () => {
      await queue.process(Q, record);
      const a = await queue.enqueue(Q, payload('s-1', 'quiet'), { jobId: 'session-s-1', delayMs: 50 });
      const b = await queue.enqueue(Q, payload('s-1', 'ended'), { jobId: 'session-s-1', delayMs: 50 });
      expect([a, b]).toEqual(['session-s-1', 'session-s-1']);
      await waitFor(() => calls.length === 1, 3_000, 'the job');
      await sleep(150);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.payload.reason).toBe('quiet');
    });

    it('retries a failing handler up to attempts with exponential backoff, then keeps it as failed with its error', async () => {
      await queue.process(
        Q,
        async (p, job) => {
          await record(p, job);
          throw new Error(`boom ${job.attempt}`);
        },
        { attempts: 3, backoffMs: 30 },
      );
      const id = await queue.enqueue(Q, payload('s-1'));
      await waitFor(async () => (await queue.counts(Q)).failed === 1, 3_000, 'the job to fail');
      await sleep(150); // no further attempt
      expect(calls.map((c) => c.job.attempt)).toEqual([1, 2, 3]);
      expect(calls.every((c) => c.job.id === id)).toBe(true);
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(25); // 30 ms
      expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(55); // 60 ms

      const failed = await queue.failed(Q, 10);
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({
        id,
        queue: Q,
        payload: payload('s-1'),
        error: 'boom 3',
        attempts: 3,
      });
      expect(failed[0]!.stack).toContain('boom 3');
      expect(Date.parse(failed[0]!.failedAt)).toBeGreaterThan(Date.now() - 5_000);
      expect(await queue.counts(Q)).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 0, failed: 1 });
    });

    it('completes a job that succeeds on a retry', async () => {
      await queue.process(
        Q,
        async (p, job) => {
          await record(p, job);
          if (job.attempt === 1) throw new Error('transient');
        },
        { attempts: 3, backoffMs: 20 },
      );
      await queue.enqueue(Q, payload('s-1'));
      await waitFor(async () => (await queue.counts(Q)).completed === 1, 3_000, 'the job to complete');
      expect(calls.map((c) => c.job.attempt)).toEqual([1, 2]);
      expect(await queue.failed(Q, 10)).toEqual([]);
    });

    it('lists failed jobs newest first, at most limit', async () => {
      await queue.process(
        Q,
        async (p) => {
          throw new Error(`failed ${p.sessionId}`);
        },
        { attempts: 1 },
      );
      for (const s of ['s-1', 's-2', 's-3']) {
        await queue.enqueue(Q, payload(s));
        await waitFor(
          async () => (await queue.failed(Q, 10)).some((f) => f.payload.sessionId === s),
          3_000,
          `${s} to fail`,
        );
      }
      const two = await queue.failed(Q, 2);
      expect(two.map((f) => f.error)).toEqual(['failed s-3', 'failed s-2']);
      expect(await queue.failed(Q, 0)).toEqual([]);
    });

    it.each([1, 3])('never runs more than concurrency = %i jobs at once', async (concurrency) => {
      let inFlight = 0;
      let maxInFlight = 0;
      await queue.process(
        Q,
        async (p, job) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await sleep(60);
          inFlight -= 1;
          await record(p, job);
        },
        { concurrency },
      );
      for (let i = 0; i < 7; i++) await queue.enqueue(Q, payload(`s-${i}`));
      await waitFor(() => calls.length === 7, 5_000, 'all jobs');
      expect(maxInFlight).toBe(concurrency);
    });

    it('stops processing when a processor is closed; the jobs wait', async () => {
      const processor = await queue.process(Q, record);
      await processor.close();
      await processor.close(); // idempotent
      await queue.enqueue(Q, payload('s-1'));
      await sleep(250);
      expect(calls).toHaveLength(0);
      expect((await queue.counts(Q)).waiting).toBe(1);
    });

    it('close() waits for the job in progress, stops processing and refuses new jobs', async () => {
      let finished = false;
      await queue.process(Q, async (p, job) => {
        await record(p, job);
        await sleep(150);
        finished = true;
      });
      await queue.enqueue(Q, payload('s-1'));
      await queue.enqueue(Q, payload('s-2'), { delayMs: 100 });
      await waitFor(() => calls.length === 1, 3_000, 'the first job to start');
      await queue.close();
      expect(finished).toBe(true);
      await sleep(250);
      expect(calls).toHaveLength(1);
      await expect(queue.enqueue(Q, payload('s-3'))).rejects.toBeInstanceOf(QueueUnavailableError);
      await expect(queue.process(Q, record)).rejects.toBeInstanceOf(QueueUnavailableError);
      await queue.close(); // idempotent
    });

    it('rejects invalid options', async () => {
      await expect(queue.enqueue(Q, payload('s-1'), { debounceKey: 'k' })).rejects.toBeInstanceOf(
        InvalidJobOptionsError,
      );
      await expect(queue.enqueue(Q, payload('s-1'), { jobId: '42' })).rejects.toBeInstanceOf(
        InvalidJobOptionsError,
      );
      await expect(queue.enqueue(Q, payload('s-1'), { jobId: 'a:b' })).rejects.toBeInstanceOf(
        InvalidJobOptionsError,
      );
      await expect(
        queue.enqueue(Q, payload('s-1'), { jobId: 'a', debounceKey: 'k', delayMs: 10 }),
      ).rejects.toBeInstanceOf(InvalidJobOptionsError);
      await expect(queue.enqueue(Q, payload('s-1'), { delayMs: -1 })).rejects.toBeInstanceOf(
        InvalidJobOptionsError,
      );
      await expect(queue.process(Q, record, { attempts: 0 })).rejects.toBeInstanceOf(InvalidJobOptionsError);
      await expect(queue.process(Q, record, { concurrency: 1.5 })).rejects.toBeInstanceOf(
        InvalidJobOptionsError,
      );
      expect(await queue.counts(Q)).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 0, failed: 0 });
    });
  });
}
