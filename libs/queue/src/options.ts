import { InvalidJobOptionsError, MAX_ATTEMPTS, type EnqueueOptions, type ProcessOptions } from './types';

/** Defaults of {@link ProcessOptions}. */
export const PROCESS_DEFAULTS = { concurrency: 1, attempts: 3, backoffMs: 1_000 } as const;

/** Completed jobs kept per queue by default (older ones are trimmed). */
export const DEFAULT_KEEP_COMPLETED = 100;
/** Failed jobs kept per queue by default, so failures stay visible. */
export const DEFAULT_KEEP_FAILED = 1_000;

/** Enqueue options after validation: `delayMs` is always set. */
export interface ResolvedEnqueueOptions {
  jobId?: string;
  delayMs: number;
  debounceKey?: string;
}

const isNonNegativeNumber = (n: number) => Number.isFinite(n) && n >= 0;
const isPositiveInteger = (n: number) => Number.isInteger(n) && n >= 1;

/**
 * Checks {@link EnqueueOptions} the same way for both implementations.
 * @throws InvalidJobOptionsError
 */
export function resolveEnqueueOptions(options: EnqueueOptions = {}): ResolvedEnqueueOptions {
  const { jobId, debounceKey } = options;
  const delayMs = options.delayMs ?? 0;
  if (!isNonNegativeNumber(delayMs))
    throw new InvalidJobOptionsError(`delayMs must be a finite number ≥ 0, got ${delayMs}`);
  if (jobId !== undefined) {
    if (jobId === '' || /^\d+$/.test(jobId) || jobId.includes(':')) {
      throw new InvalidJobOptionsError(
        `jobId must be non-empty, not all digits and without ':', got '${jobId}'`,
      );
    }
    if (debounceKey !== undefined)
      throw new InvalidJobOptionsError('jobId and debounceKey cannot be combined');
  }
  if (debounceKey !== undefined) {
    if (debounceKey === '') throw new InvalidJobOptionsError('debounceKey must be non-empty');
    if (delayMs <= 0) throw new InvalidJobOptionsError('debounceKey needs delayMs > 0');
  }
  // Whole ms: Redis takes integer TTLs (the debounce key) and BullMQ integer delays.
  return { jobId, delayMs: Math.ceil(delayMs), debounceKey };
}

/**
 * Checks {@link ProcessOptions} and fills in {@link PROCESS_DEFAULTS}.
 * @throws InvalidJobOptionsError
 */
export function resolveProcessOptions(options: ProcessOptions = {}): Required<ProcessOptions> {
  const resolved = { ...PROCESS_DEFAULTS, ...stripUndefined(options) };
  if (!isPositiveInteger(resolved.concurrency)) {
    throw new InvalidJobOptionsError(`concurrency must be an integer ≥ 1, got ${resolved.concurrency}`);
  }
  if (!isPositiveInteger(resolved.attempts) || resolved.attempts > MAX_ATTEMPTS) {
    throw new InvalidJobOptionsError(
      `attempts must be an integer in 1..${MAX_ATTEMPTS}, got ${resolved.attempts}`,
    );
  }
  if (!isNonNegativeNumber(resolved.backoffMs)) {
    throw new InvalidJobOptionsError(`backoffMs must be a finite number ≥ 0, got ${resolved.backoffMs}`);
  }
  return resolved;
}

/** Exponential backoff: the wait in ms after failed attempt number `attemptsMade` (1-based). */
export function backoffDelayMs(backoffMs: number, attemptsMade: number): number {
  return Math.round(backoffMs * 2 ** Math.max(0, attemptsMade - 1));
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The message and stack of anything thrown (handlers may throw non-errors). */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(typeof err === 'string' ? err : JSON.stringify(err));
}
