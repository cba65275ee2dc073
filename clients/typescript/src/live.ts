import { WardenApi } from './api';
import type { RunStorage } from './context';
import { Flusher, type FlushResult } from './flusher';
import { Guard } from './guard';
import { createProvenanceTracker } from './provenance';
import { errorFields } from './logger';
import type { ResolvedOptions } from './options';
import { BoundedQueue } from './queue';
import { EventRecorder, type QueuedEvent } from './recorder';
import { Registration } from './registration';
import type { Runtime } from './runtime';
import { Transport } from './transport';

/**
 * Wires the enabled client: transport → API → registration (started now) → queue and flusher
 * (timer started now) → recorder → guard. Registers a `beforeExit` hook that shuts down (flushes)
 * when the process is about to exit without an explicit `shutdown()`.
 */
export function createLiveRuntime(options: ResolvedOptions, storage: RunStorage): Runtime {
  const { logger } = options;
  const transport = new Transport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch,
    maxRetries: options.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs,
    retryMaxDelayMs: options.retryMaxDelayMs,
    requestTimeoutMs: options.requestTimeoutMs,
    logger,
    // Retries happen only after an await, when `f` below is initialised.
    onRetry: () => {
      f.totals.retries++;
    },
  });
  const api = new WardenApi(transport, logger);
  const registration = new Registration(
    api,
    { agent: options.agent, version: options.version, capabilities: options.capabilities },
    logger,
  );
  const f: Flusher = new Flusher(
    new BoundedQueue<QueuedEvent>(options.maxQueueSize),
    api,
    registration,
    { maxBatchSize: options.maxBatchSize, flushIntervalMs: options.flushIntervalMs },
    logger,
  );
  const recorder = new EventRecorder(
    (item) => f.enqueue(item),
    logger,
    options.sessionId,
    options.idFactory,
    options.clock,
  );
  const guard = new Guard({
    api,
    identity: registration,
    recorder,
    logger,
    mode: options.mode,
    failMode: options.failMode,
    approvalTimeoutMs: options.approvalTimeoutMs,
  });
  f.startTimer();

  let shuttingDown: Promise<FlushResult> | undefined;
  const onBeforeExit = () => {
    void shutdown();
  };
  const shutdown = (): Promise<FlushResult> => {
    if (!shuttingDown) {
      f.stopTimer();
      process.removeListener('beforeExit', onBeforeExit);
      shuttingDown = registration
        .ready()
        .catch(() => {})
        .then(() => f.flush())
        .catch((e: unknown) => {
          logger.error('warden shutdown failed', errorFields(e));
          return { sent: 0, rejected: 0, dropped: 0, failed: 0, queued: f.stats().queued };
        });
      return shuttingDown;
    }
    // Already shut down: send whatever came after (no timer any more).
    return shuttingDown.then(() => f.flush());
  };
  process.once('beforeExit', onBeforeExit);

  return {
    options,
    logger,
    recorder,
    guard,
    identity: registration,
    storage,
    provenance: createProvenanceTracker(options.provenance, { logger }),
    flush: () => f.flush(),
    shutdown,
    stats: () => f.stats(),
  };
}
