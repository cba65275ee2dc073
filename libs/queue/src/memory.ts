import type { QueueName, QueuePayloads } from '@agent-warden/contracts';
import { silentLogger, type Logger } from '@agent-warden/observability';
import {
  DEFAULT_KEEP_COMPLETED,
  DEFAULT_KEEP_FAILED,
  backoffDelayMs,
  resolveEnqueueOptions,
  resolveProcessOptions,
  toError,
} from './options';
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

/** Options of {@link InMemoryJobQueue}. */
export interface InMemoryJobQueueOptions {
  logger?: Logger;
  /** Completed jobs kept per queue (default 100). */
  keepCompleted?: number;
  /** Failed jobs kept per queue, newest kept (default 1000). */
  keepFailed?: number;
}

type State = 'delayed' | 'waiting' | 'active' | 'completed' | 'failed';

interface MemoryJob {
  id: string;
  /** The payload as JSON, parsed afresh for every attempt (as BullMQ reads it from Redis). */
  data: string;
  state: State;
  attemptsMade: number;
  timer?: NodeJS.Timeout;
  debounceKey?: string;
  error?: Error;
  failedAt?: number;
}

interface MemoryProcessor {
  handler: JobHandler<QueueName>;
  options: Required<ProcessOptions>;
  active: number;
  closed: boolean;
  onIdle: (() => void)[];
}

/** The jobs and processors of one queue name. */
interface QueueSlot {
  name: QueueName;
  jobs: Map<string, MemoryJob>;
  waiting: MemoryJob[];
  /** Debounce key → the job still waiting out its delay for it. */
  debounced: Map<string, MemoryJob>;
  completed: MemoryJob[];
  failed: MemoryJob[];
  processors: MemoryProcessor[];
  nextProcessor: number;
}

/**
 * In-process implementation of {@link JobQueue} for standalone mode, with the semantics of the
 * BullMQ one: delays and debounce by key on timers (`unref()`ed, so they never keep the process
 * alive), per-processor concurrency, retries with exponential backoff, completed and failed jobs
 * kept up to a count. Payloads go through JSON like on Redis. Nothing is durable: jobs still
 * pending when the process stops are lost.
 */
export class InMemoryJobQueue implements JobQueue {
  private readonly slots = new Map<QueueName, QueueSlot>();
  private readonly logger: Logger;
  private readonly keepCompleted: number;
  private readonly keepFailed: number;
  private seq = 0;
  private closed = false;

  constructor(options: InMemoryJobQueueOptions = {}) {
    this.logger = (options.logger ?? silentLogger()).child({ component: 'queue', queueBackend: 'memory' });
    this.keepCompleted = options.keepCompleted ?? DEFAULT_KEEP_COMPLETED;
    this.keepFailed = options.keepFailed ?? DEFAULT_KEEP_FAILED;
  }

  async enqueue<N extends QueueName>(
    name: N,
    payload: QueuePayloads[N],
    options?: EnqueueOptions,
  ): Promise<string> {
    if (this.closed) throw new QueueUnavailableError('queue is closed');
    const opts = resolveEnqueueOptions(options);
    const slot = this.slot(name);
    if (opts.jobId !== undefined && slot.jobs.has(opts.jobId)) return opts.jobId;

    if (opts.debounceKey !== undefined) {
      const pending = slot.debounced.get(opts.debounceKey);
      if (pending) {
        // As BullMQ with `replace`: the pending job is removed and a new one takes its place.
        clearTimeout(pending.timer);
        slot.jobs.delete(pending.id);
        slot.debounced.delete(opts.debounceKey);
      }
    }

    const job: MemoryJob = {
      id: opts.jobId ?? String(++this.seq),
      data: JSON.stringify(payload),
      state: 'delayed',
      attemptsMade: 0,
      debounceKey: opts.debounceKey,
    };
    slot.jobs.set(job.id, job);
    if (opts.delayMs > 0) {
      if (job.debounceKey !== undefined) slot.debounced.set(job.debounceKey, job);
      this.delay(slot, job, opts.delayMs);
    } else {
      this.makeWaiting(slot, job);
    }
    return job.id;
  }

  async dropPending(name: QueueName, debounceKey: string): Promise<boolean> {
    if (this.closed) throw new QueueUnavailableError('queue is closed');
    const slot = this.slot(name);
    const pending = slot.debounced.get(debounceKey);
    if (!pending || pending.state !== 'delayed') return false;
    clearTimeout(pending.timer);
    slot.jobs.delete(pending.id);
    slot.debounced.delete(debounceKey);
    return true;
  }

  async process<N extends QueueName>(
    name: N,
    handler: JobHandler<N>,
    options?: ProcessOptions,
  ): Promise<Processor> {
    if (this.closed) throw new QueueUnavailableError('queue is closed');
    const proc: MemoryProcessor = {
      handler: handler as unknown as JobHandler<QueueName>,
      options: resolveProcessOptions(options),
      active: 0,
      closed: false,
      onIdle: [],
    };
    const slot = this.slot(name);
    slot.processors.push(proc);
    this.pump(slot);
    return { close: () => this.closeProcessor(slot, proc) };
  }

  async counts(name: QueueName): Promise<QueueCounts> {
    const counts: QueueCounts = { waiting: 0, delayed: 0, active: 0, completed: 0, failed: 0 };
    for (const job of this.slots.get(name)?.jobs.values() ?? []) counts[job.state] += 1;
    return counts;
  }

  async failed<N extends QueueName>(name: N, limit: number): Promise<FailedJob<N>[]> {
    const failed = this.slots.get(name)?.failed ?? [];
    if (limit <= 0) return [];
    return failed
      .slice(-limit)
      .reverse()
      .map((job) => ({
        id: job.id,
        queue: name,
        payload: JSON.parse(job.data) as QueuePayloads[N],
        error: job.error?.message ?? '',
        stack: job.error?.stack,
        attempts: job.attemptsMade,
        failedAt: new Date(job.failedAt ?? Date.now()).toISOString(),
      }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing: Promise<void>[] = [];
    for (const slot of this.slots.values()) {
      for (const job of slot.jobs.values()) clearTimeout(job.timer);
      for (const proc of [...slot.processors]) closing.push(this.closeProcessor(slot, proc));
    }
    await Promise.all(closing);
  }

  private slot(name: QueueName): QueueSlot {
    let slot = this.slots.get(name);
    if (!slot) {
      slot = {
        name,
        jobs: new Map(),
        waiting: [],
        debounced: new Map(),
        completed: [],
        failed: [],
        processors: [],
        nextProcessor: 0,
      };
      this.slots.set(name, slot);
    }
    return slot;
  }

  private delay(slot: QueueSlot, job: MemoryJob, ms: number): void {
    job.state = 'delayed';
    job.timer = setTimeout(() => {
      job.timer = undefined;
      if (job.debounceKey !== undefined && slot.debounced.get(job.debounceKey) === job)
        slot.debounced.delete(job.debounceKey);
      this.makeWaiting(slot, job);
    }, ms);
    job.timer.unref();
  }

  private makeWaiting(slot: QueueSlot, job: MemoryJob): void {
    job.state = 'waiting';
    slot.waiting.push(job);
    this.pump(slot);
  }

  /** Hands waiting jobs to processors with a free slot, round robin. */
  private pump(slot: QueueSlot): void {
    while (slot.waiting.length > 0 && !this.closed) {
      const proc = this.freeProcessor(slot);
      if (!proc) return;
      const job = slot.waiting.shift()!;
      void this.run(slot, proc, job);
    }
  }

  private freeProcessor(slot: QueueSlot): MemoryProcessor | undefined {
    const n = slot.processors.length;
    for (let i = 0; i < n; i++) {
      const proc = slot.processors[(slot.nextProcessor + i) % n]!;
      if (!proc.closed && proc.active < proc.options.concurrency) {
        slot.nextProcessor = (slot.nextProcessor + i + 1) % n;
        return proc;
      }
    }
    return undefined;
  }

  private async run(slot: QueueSlot, proc: MemoryProcessor, job: MemoryJob): Promise<void> {
    job.state = 'active';
    proc.active += 1;
    const attempt = job.attemptsMade + 1;
    try {
      await proc.handler(JSON.parse(job.data) as QueuePayloads[QueueName], { id: job.id, attempt });
      job.attemptsMade = attempt;
      this.finish(slot, job, 'completed');
    } catch (thrown) {
      const err = toError(thrown);
      job.attemptsMade = attempt;
      job.error = err;
      if (attempt < proc.options.attempts && !this.closed) {
        const retryInMs = backoffDelayMs(proc.options.backoffMs, attempt);
        this.logger.warn({ queue: slot.name, jobId: job.id, attempt, retryInMs, err }, 'job attempt failed');
        this.delay(slot, job, retryInMs);
      } else {
        this.logger.error({ queue: slot.name, jobId: job.id, attempt, err }, 'job failed');
        job.failedAt = Date.now();
        this.finish(slot, job, 'failed');
      }
    } finally {
      proc.active -= 1;
      if (proc.active === 0) for (const resolve of proc.onIdle.splice(0)) resolve();
      this.pump(slot);
    }
  }

  private finish(slot: QueueSlot, job: MemoryJob, state: 'completed' | 'failed'): void {
    job.state = state;
    const kept = state === 'completed' ? slot.completed : slot.failed;
    const keep = state === 'completed' ? this.keepCompleted : this.keepFailed;
    kept.push(job);
    while (kept.length > keep) slot.jobs.delete(kept.shift()!.id);
  }

  private async closeProcessor(slot: QueueSlot, proc: MemoryProcessor): Promise<void> {
    proc.closed = true;
    const i = slot.processors.indexOf(proc);
    if (i >= 0) slot.processors.splice(i, 1);
    if (proc.active > 0) await new Promise<void>((resolve) => proc.onIdle.push(resolve));
  }
}
