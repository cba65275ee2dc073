import { QUEUES } from '@agent-warden/contracts';
import { InMemoryJobQueue } from '../src';
import { describeJobQueueContract, payload, waitFor } from './job-queue.contract';

describeJobQueueContract('InMemoryJobQueue', async () => ({ queue: new InMemoryJobQueue() }));

describe('InMemoryJobQueue', () => {
  const Q = QUEUES.sessionReady;

  it('keeps only keepCompleted completed and keepFailed failed jobs, forgetting their ids', async () => {
    const queue = new InMemoryJobQueue({ keepCompleted: 2, keepFailed: 1 });
    const done: string[] = [];
    await queue.process(
      Q,
      async (p) => {
        if (p.reason === 'manual') throw new Error(`no ${p.sessionId}`);
        done.push(p.sessionId);
      },
      { attempts: 1 },
    );
    for (const s of ['s-1', 's-2', 's-3']) await queue.enqueue(Q, payload(s), { jobId: `job-${s}` });
    for (const s of ['s-4', 's-5']) await queue.enqueue(Q, payload(s, 'manual'));
    await waitFor(async () => (await queue.counts(Q)).failed === 1 && done.length === 3);
    await waitFor(async () => (await queue.counts(Q)).active === 0);
    expect(await queue.counts(Q)).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 2, failed: 1 });
    expect((await queue.failed(Q, 10)).map((f) => f.error)).toEqual(['no s-5']);
    // job-s-1 was trimmed, so its id may be used again; job-s-3 is still kept
    await queue.enqueue(Q, payload('s-1'), { jobId: 'job-s-1' });
    await queue.enqueue(Q, payload('s-3'), { jobId: 'job-s-3' });
    await waitFor(() => done.length === 4);
    expect(done).toEqual(['s-1', 's-2', 's-3', 's-1']);
    await queue.close();
  });

  it('hands the handler a copy of the payload that went through JSON, as on Redis', async () => {
    const queue = new InMemoryJobQueue();
    const seen: unknown[] = [];
    await queue.process(Q, async (p) => {
      seen.push(p);
    });
    const original = { ...payload('s-1'), extra: new Date(0) } as unknown as ReturnType<typeof payload>;
    await queue.enqueue(Q, original);
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toEqual({ ...payload('s-1'), extra: '1970-01-01T00:00:00.000Z' });
    expect(seen[0]).not.toBe(original);
    await queue.close();
  });

  it('shares the jobs of one queue between several processors', async () => {
    const queue = new InMemoryJobQueue();
    const byProcessor: Record<string, number> = { a: 0, b: 0 };
    const slow = (name: string) => async () => {
      byProcessor[name]! += 1;
      await new Promise((r) => setTimeout(r, 30));
    };
    await queue.process(Q, slow('a'));
    await queue.process(Q, slow('b'));
    for (let i = 0; i < 4; i++) await queue.enqueue(Q, payload(`s-${i}`));
    await waitFor(async () => (await queue.counts(Q)).completed === 4);
    expect(byProcessor).toEqual({ a: 2, b: 2 });
    await queue.close();
  });
});
