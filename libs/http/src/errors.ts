import { ERROR_CODES, type ErrorCode, type ValidationIssue } from '@agent-warden/contracts';

/**
 * The one error hierarchy of the services (docs/conventions.md#errors-and-logs): a stable `code` from
 * {@link ERROR_CODES}, its HTTP status, and whether a client should retry.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      errors?: ValidationIssue[];
      retryable?: boolean;
      /** Seconds, sent as `Retry-After` (RFC 9110 §10.2.3). */
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_CODES[code];
  }
  get retryable(): boolean {
    return this.options.retryable ?? (this.status === 429 || this.status >= 500);
  }
}

/** 400 with the offending paths. */
export const validationError = (detail: string, errors: ValidationIssue[]) =>
  new AppError('validation_failed', detail, { errors });
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const unauthenticated = (detail: string) => new AppError('unauthenticated', detail);
export const forbidden = (detail: string) => new AppError('forbidden', detail);
