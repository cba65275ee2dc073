import { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { TopicMessage, TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { BusUnavailableError, type EventBus } from './types';

/**
 * Settings of a {@link KafkaPublisherThread}: the {@link PlatformaticPublisherOptions} that can
 * cross a thread boundary (the thread builds its own logger from `logName` / `logLevel`).
 */
export interface PublisherThreadOptions {
  brokers: string[];
  clientId: string;
  topicPrefix?: string;
  /** Longest a publish may take before it fails with {@link BusUnavailableError}, ms (default 5000). */
  publishTimeoutMs?: number;
  /** `service` field and pino level of the thread's log lines. */
  logName: string;
  logLevel?: string;
}

/** Main thread → publisher thread. */
export type PublisherRequest =
  { kind: 'publish'; id: number; topic: TopicName; messages: TopicMessage<TopicName>[] } | { kind: 'close' };

/** Publisher thread → main thread. */
export type PublisherReply =
  { kind: 'published'; id: number } | { kind: 'failed'; id: number; message: string };

/** The thread's entry: `.ts` under tsx (development, tests, the docker image), `.js` once compiled. */
const ENTRY = path.join(__dirname, `publisher-thread-worker${path.extname(__filename)}`);

function spawnWorker(options: PublisherThreadOptions): Worker {
  if (ENTRY.endsWith('.ts')) {
    // A worker's entry module is loaded before any loader hook of the parent applies: register
    // tsx's CommonJS hook inside the worker first (the same tsx the services run under).
    const tsx = require.resolve('tsx/cjs');
    return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(ENTRY)});`, {
      eval: true,
      workerData: options,
    });
  }
  return new Worker(ENTRY, { workerData: options });
}

/**
 * Publishes to Kafka from a worker thread (`node:worker_threads`) running a
 * {@link PlatformaticPublisher}, so that the client's encoding, partitioning, network I/O and the
 * garbage they make stay off the caller's event loop and out of its heap. Used by the gateway's
 * evaluation recorder: at 1,000 guard checks/s, publishing on the request thread took ~15 % of a
 * core and most of the p99 latency tail (docs/benchmarks.md "Guardrail evaluation: findings").
 *
 * `publish` has {@link EventBus.publish}'s contract: it resolves once the log has the records
 * durably (`acks: -1`) and rejects with {@link BusUnavailableError} when it cannot take them
 * within `publishTimeoutMs`, when the thread died (it is started again on the next publish), or
 * after `close`. Messages are copied to the thread (structured clone).
 */
export class KafkaPublisherThread implements Pick<EventBus, 'publish' | 'isHealthy' | 'close'> {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private healthy = true;
  private closed = false;

  constructor(
    private readonly options: PublisherThreadOptions,
    private readonly logger: Logger,
  ) {}

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(this.options);
    worker.on('message', (reply: PublisherReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      this.healthy = reply.kind === 'published';
      if (reply.kind === 'published') p.resolve();
      else p.reject(new BusUnavailableError(reply.message));
    });
    worker.on('error', (err) => this.logger.error({ err }, 'publisher thread failed'));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.pending.size > 0 || !this.closed)
        this.logger.warn({ code, pending: this.pending.size }, 'publisher thread exited');
      this.failPending('the publisher thread exited');
    });
    // The thread never keeps the process alive on its own (the owner closes it on shutdown).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failPending(message: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    if (waiting.length > 0) this.healthy = false;
    for (const p of waiting) p.reject(new BusUnavailableError(message));
  }

  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    if (this.closed) throw new BusUnavailableError('publisher is closed');
    if (messages.length === 0) return;
    const worker = this.ensureWorker();
    const id = this.nextId++;
    await new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const request: PublisherRequest = {
        kind: 'publish',
        id,
        topic,
        messages: messages as unknown as TopicMessage<TopicName>[],
      };
      worker.postMessage(request);
    });
  }

  /** False after a publish failed, until one succeeds. */
  isHealthy(): boolean {
    return this.healthy;
  }

  /**
   * Lets publishes already sent finish (the thread's producer disconnects after them), then ends
   * the thread. Later publishes reject. Never throws.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const request: PublisherRequest = { kind: 'close' };
    worker.postMessage(request);
    await exited;
  }
}
