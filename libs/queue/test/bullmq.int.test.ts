import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { QUEUES } from '@agent-warden/contracts';
import { BullMqJobQueue, QueueUnavailableError, type BullMqJobQueueOptions } from '../src';
import { describeJobQueueContract, payload, sleep, waitFor } from './job-queue.contract';

/**
 * Integration suite on a REAL Redis given by REDIS_URL (e.g. `infra/redis/redis.sh start`, then
 * REDIS_URL=redis://127.0.0.1:16379). It fails, never skips, when REDIS_URL is unset or Redis is
 * unreachable. Each test uses a random key prefix and deletes its keys afterwards.
 */
const REDIS_URL = process.env.REDIS_URL;
const Q = QUEUES.sessionReady;
let admin: Redis;

beforeAll(async () => {
  if (!REDIS_URL) {
    throw new Error(
      'REDIS_URL is not set: this suite needs a real Redis (infra/redis/redis.sh start; REDIS_URL=redis://127.0.0.1:16379)',
    );
  }
  admin = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    disconnectTimeout: 100,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  let lastError: Error | undefined;
  admin.on('error', (err: Error) => (lastError = err));
  try {
    await admin.connect();
    await admin.ping();
  } catch (err) {
    admin.disconnect();
    throw new Error(`Redis at ${REDIS_URL} is unreachable: ${(lastError ?? (err as Error)).message}`, {
      cause: err,
    });
  }
});

afterAll(async () => {
  if (admin?.status === 'ready') await admin.quit();
  else admin?.disconnect();
});

async function deleteKeys(prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await admin.del(...keys);
  } while (cursor !== '0');
}

const newPrefix = () => `warden-test-${randomUUID().slice(0, 8)}`;
const bullmq = (prefix: string, extra: Partial<BullMqJobQueueOptions> = {}) =>
  new BullMqJobQueue({ redisUrl: REDIS_URL!, prefix, ...extra });

describeJobQueueContract('BullMqJobQueue', async () => {
  const prefix = newPrefix();
  return { queue: bullmq(prefix), cleanup: () => deleteKeys(prefix) };
});

describe('BullMqJobQueue on Redis', () => {
  let prefix: string;
  const open: BullMqJobQueue[] = [];
  const make = (extra?: Partial<BullMqJobQueueOptions>) => {
    const q = bullmq(prefix, extra);
    open.push(q);
    return q;
  };
  beforeEach(() => {
    prefix = newPrefix();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
    await deleteKeys(prefix);
  });

  it('debounces with BullMQ deduplication: one delayed job and one dedup key per debounce key', async () => {
    const queue = make();
    for (const reason of ['quiet', 'late_event', 'ended'] as const) {
      await queue.enqueue(Q, payload('s-1', reason), { delayMs: 300, debounceKey: 'proj-1:s-1' });
    }
    const delayed = await admin.zrange(`${prefix}:${Q}:delayed`, 0, -1);
    expect(delayed).toHaveLength(1);
    expect(await admin.get(`${prefix}:${Q}:de:proj-1:s-1`)).toBe(delayed[0]);
    const pttl = await admin.pttl(`${prefix}:${Q}:de:proj-1:s-1`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(300);
    expect(JSON.parse((await admin.hget(`${prefix}:${Q}:${delayed[0]}`, 'data'))!)).toEqual(
      payload('s-1', 'ended'),
    );
  });

  it('hands jobs enqueued by one instance to a processor in another, and keeps failed jobs visible to a third', async () => {
    const producer = make();
    const worker = make();
    const seen: string[] = [];
    await worker.process(
      Q,
      async (p) => {
        seen.push(p.sessionId);
        if (p.reason === 'manual') throw new Error('cannot analyse');
      },
      { attempts: 1 },
    );
    await producer.enqueue(Q, payload('s-ok'));
    await producer.enqueue(Q, payload('s-bad', 'manual'));
    await waitFor(async () => (await producer.counts(Q)).failed === 1 && seen.length === 2);
    await worker.close();
    const reader = make();
    const failed = await reader.failed(Q, 10);
    expect(failed.map((f) => [f.payload.sessionId, f.error, f.attempts])).toEqual([
      ['s-bad', 'cannot analyse', 1],
    ]);
  });

  it('keeps delayed jobs in Redis across a restart of the processor', async () => {
    const first = make();
    await first.enqueue(Q, payload('s-1'), { delayMs: 100 });
    await first.close();
    const second = make();
    const seen: string[] = [];
    await second.process(Q, async (p) => {
      seen.push(p.sessionId);
    });
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual(['s-1']);
  });

  it('fails an enqueue with QueueUnavailableError when Redis cannot be reached in time', async () => {
    const queue = make({ redisUrl: 'redis://127.0.0.1:1', enqueueTimeoutMs: 300 });
    const t0 = Date.now();
    await expect(queue.enqueue(Q, payload('s-1'))).rejects.toBeInstanceOf(QueueUnavailableError);
    expect(Date.now() - t0).toBeLessThan(2_000);
    await sleep(10);
  });
});
