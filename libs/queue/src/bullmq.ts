import type { Redis, RedisOptions } from 'ioredis';
import type { QueueName, QueuePayloads } from '@agent-warden/contracts';
import { silentLogger, type Logger } from '@agent-warden/observability';
import { BullMqProducer } from './bullmq-producer';
import { startBullMqProcessor } from './bullmq-processor';
import { DEFAULT_KEEP_COMPLETED, DEFAULT_KEEP_FAILED } from './options';
import { closeRedis, connectRedis } from './redis';
import {
  QueueUnavailableError,
  type EnqueueOptions,
  type FailedJob,
  type JobHandler,
  type JobQueue,
  type ProcessOptions,
  type Processor,
  type QueueCounts,
} from './types';

/** Options of {@link BullMqJobQueue}. */
export interface BullMqJobQueueOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379/0` (`rediss://` for TLS). */
  redisUrl: string;
  /** Prefix of every Redis key (default `warden`); tests use a random one per test. */
  prefix?: string;
  logger?: Logger;
  /** Completed jobs kept per queue (default 100); older ones are trimmed. */
  keepCompleted?: number;
  /** Failed jobs kept per queue (default 1000), so failures stay visible. */
  keepFailed?: number;
  /** Longest an enqueue may take before it fails with {@link QueueUnavailableError}, ms (default 5000). */
  enqueueTimeoutMs?: number;
}

/**
 * BullMQ (Redis) implementation of {@link JobQueue}, for the stack. Producer and readers share one
 * connection; every {@link BullMqJobQueue.process} call starts a `Worker` on a connection of its
 * own (with `maxRetriesPerRequest: null`, as BullMQ requires), closed with it. Nothing connects
 * before the first call. `process` resolves once its worker is connected, so it waits while Redis
 * is unreachable; `enqueue` fails after `enqueueTimeoutMs` instead.
 *
 * Jobs carry `attempts` = `MAX_ATTEMPTS` and a backoff type that only the workers know: the
 * processor's `attempts` / `backoffMs` decide (see `bullmq-processor.ts`).
 */
export class BullMqJobQueue implements JobQueue {
  private readonly logger: Logger;
  private readonly prefix: string;
  private producerState?: { connection: Redis; producer: BullMqProducer };
  private readonly processors = new Set<Processor>();
  private closed = false;

  constructor(private readonly options: BullMqJobQueueOptions) {
    this.logger = (options.logger ?? silentLogger()).child({ component: 'queue', queueBackend: 'bullmq' });
    this.prefix = options.prefix ?? 'warden';
  }

  async enqueue<N extends QueueName>(
    name: N,
    payload: QueuePayloads[N],
    options?: EnqueueOptions,
  ): Promise<string> {
    return this.producer().enqueue(name, payload, options);
  }

  async process<N extends QueueName>(
    name: N,
    handler: JobHandler<N>,
    options?: ProcessOptions,
  ): Promise<Processor> {
    this.assertOpen();
    const connection = this.connect('worker', { maxRetriesPerRequest: null });
    let processor: Processor;
    try {
      processor = await startBullMqProcessor({
        name,
        handler,
        connection,
        prefix: this.prefix,
        logger: this.logger,
        process: options,
      });
    } catch (err) {
      connection.disconnect();
      throw err;
    }
    const tracked: Processor = {
      close: async () => {
        await processor.close();
        this.processors.delete(tracked);
      },
    };
    this.processors.add(tracked);
    return tracked;
  }

  async dropPending(name: QueueName, debounceKey: string): Promise<boolean> {
    return this.producer().dropPending(name, debounceKey);
  }

  async counts(name: QueueName): Promise<QueueCounts> {
    return this.producer().counts(name);
  }

  async failed<N extends QueueName>(name: N, limit: number): Promise<FailedJob<N>[]> {
    return this.producer().failed(name, limit);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.processors].map((p) => p.close()));
    if (this.producerState) {
      const { connection, producer } = this.producerState;
      await producer.close();
      await closeRedis(connection);
    }
  }

  private producer(): BullMqProducer {
    this.assertOpen();
    if (!this.producerState) {
      // Commands fail after a few reconnect tries instead of waiting forever: enqueue must answer.
      const connection = this.connect('producer', { maxRetriesPerRequest: 3 });
      const producer = new BullMqProducer({
        connection,
        prefix: this.prefix,
        logger: this.logger,
        keepCompleted: this.options.keepCompleted ?? DEFAULT_KEEP_COMPLETED,
        keepFailed: this.options.keepFailed ?? DEFAULT_KEEP_FAILED,
        enqueueTimeoutMs: this.options.enqueueTimeoutMs ?? 5_000,
      });
      this.producerState = { connection, producer };
    }
    return this.producerState.producer;
  }

  private connect(role: 'producer' | 'worker', options: RedisOptions): Redis {
    return connectRedis(this.options.redisUrl, options, this.logger.child({ role }));
  }

  private assertOpen(): void {
    if (this.closed) throw new QueueUnavailableError('queue is closed');
  }
}
