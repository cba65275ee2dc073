import type { Approval, GuardDecision, Problem, ValidationIssue } from '@agent-warden/contracts';

/**
 * Stable codes of the client's errors, one per failure kind. Match on `error.code` (or on the
 * class with `instanceof`); the message text may change between versions.
 */
export type WardenErrorCode =
  | 'configuration_invalid'
  | 'authentication_failed'
  | 'permission_denied'
  | 'validation_failed'
  | 'not_found'
  | 'api_error'
  | 'rate_limited'
  | 'service_unavailable'
  | 'connection_failed'
  | 'guardrail_blocked'
  | 'approval_denied'
  | 'approval_timeout'
  | 'guardrail_unavailable';

/** Fields every {@link WardenError} may carry. */
export interface WardenErrorInit {
  /** HTTP status of the answer that caused the error, when there was one. */
  status?: number;
  /** The RFC 9457 problem body of the answer, when the service sent one. */
  problem?: Problem;
  /** True when repeating the same request may succeed (network errors, 408, 429, 5xx). */
  retryable?: boolean;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Base of every error the client throws or reports. `code` is stable; `status` and `problem`
 * describe the HTTP answer when there was one; `retryable` says whether a retry may help.
 */
export class WardenError extends Error {
  /** Stable code of the failure kind. */
  readonly code: WardenErrorCode;
  /** HTTP status, when the error comes from an HTTP answer. */
  readonly status?: number;
  /** Parsed `application/problem+json` body, when the service sent one. */
  readonly problem?: Problem;
  /** True when the same request may succeed if repeated. */
  readonly retryable: boolean;

  constructor(code: WardenErrorCode, message: string, init: WardenErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = init.status;
    this.problem = init.problem;
    this.retryable = init.retryable ?? false;
  }
}

/** An option has a bad value (thrown by the constructor; the message names the option). */
export class ConfigurationError extends WardenError {
  /** Name of the offending option, e.g. `maxBatchSize`. */
  readonly option: string;
  constructor(option: string, message: string) {
    super('configuration_invalid', `${option}: ${message}`);
    this.option = option;
  }
}

/** 401: the API key is missing or unknown. Not retried. */
export class AuthenticationError extends WardenError {
  constructor(message: string, init: WardenErrorInit = {}) {
    super('authentication_failed', message, { ...init, status: 401, retryable: false });
  }
}

/** 403: the API key lacks the scope, or the resource belongs to another project. Not retried. */
export class PermissionDeniedError extends WardenError {
  constructor(message: string, init: WardenErrorInit = {}) {
    super('permission_denied', message, { ...init, status: 403, retryable: false });
  }
}

/** 400 (or 413/422): the service refused the body. `errors` names each offending path. Not retried. */
export class ValidationError extends WardenError {
  /** `[{ path, message }]` from the problem body (empty when the service sent none). */
  readonly errors: ValidationIssue[];
  constructor(message: string, init: WardenErrorInit = {}) {
    super('validation_failed', message, { ...init, retryable: false });
    this.errors = init.problem?.errors ?? [];
  }
}

/** 404: unknown agent, version or approval. Not retried. */
export class NotFoundError extends WardenError {
  constructor(message: string, init: WardenErrorInit = {}) {
    super('not_found', message, { ...init, status: 404, retryable: false });
  }
}

/** Any other non-retryable HTTP answer (409, other 4xx). */
export class ApiError extends WardenError {
  constructor(message: string, init: WardenErrorInit = {}) {
    super('api_error', message, { ...init, retryable: false });
  }
}

/** 429: too many requests. Retried (honouring `retryAfterMs`); thrown once the retries are spent. */
export class RateLimitError extends WardenError {
  /** The wait the service asked for with `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs?: number;
  constructor(message: string, init: WardenErrorInit & { retryAfterMs?: number } = {}) {
    super('rate_limited', message, { ...init, status: 429, retryable: true });
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 408 or 5xx: the service could not answer (e.g. 503 when the event log is down). Retried. */
export class ServiceUnavailableError extends WardenError {
  /** The wait the service asked for with `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs?: number;
  constructor(message: string, init: WardenErrorInit & { retryAfterMs?: number } = {}) {
    super('service_unavailable', message, { ...init, retryable: true });
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** No HTTP answer: DNS, refused or reset connection, or `requestTimeoutMs` passed. Retried. */
export class ConnectionError extends WardenError {
  /** True when the request was cut by `requestTimeoutMs`. */
  readonly timedOut: boolean;
  constructor(message: string, init: WardenErrorInit & { timedOut?: boolean } = {}) {
    super('connection_failed', message, { ...init, retryable: true });
    this.timedOut = init.timedOut ?? false;
  }
}

/** Enforce mode: a guardrail blocked the action; the callback did not run. */
export class GuardrailBlockedError extends WardenError {
  /** The service's decision (`policyDecision`, `effectiveDecision`, `matchedGuardrails`, ...). */
  readonly decision: GuardDecision;
  constructor(decision: GuardDecision, what: string) {
    const names = decision.matchedGuardrails.map((g) => g.name).join(', ');
    super('guardrail_blocked', `${what} blocked by guardrail${names ? ` (${names})` : ''}`);
    this.decision = decision;
  }
}

/** Enforce mode: the approval was denied or cancelled; the callback did not run. */
export class ApprovalDeniedError extends WardenError {
  /** The decision that asked for the approval. */
  readonly decision: GuardDecision;
  /** The approval as last read (status `denied` or `cancelled`). */
  readonly approval: Approval;
  constructor(decision: GuardDecision, approval: Approval, what: string) {
    const by = approval.decidedBy ? ` by ${approval.decidedBy}` : '';
    super('approval_denied', `${what}: approval ${approval.id} ${approval.status}${by}`);
    this.decision = decision;
    this.approval = approval;
  }
}

/**
 * Enforce mode: the approval expired on the service (policy `onTimeout: deny`), or the client
 * stopped waiting (`approvalTimeoutMs`, or `expiresAt` + margin); the callback did not run.
 */
export class ApprovalTimeoutError extends WardenError {
  /** The decision that asked for the approval. */
  readonly decision: GuardDecision;
  /** The approval id. */
  readonly approvalId: string;
  /** The approval as last read, when a read succeeded. */
  readonly approval?: Approval;
  /** How long the client waited, ms. */
  readonly waitedMs: number;
  constructor(decision: GuardDecision, approvalId: string, waitedMs: number, approval?: Approval) {
    super(
      'approval_timeout',
      `approval ${approvalId} not granted in time (waited ${Math.round(waitedMs)} ms)`,
    );
    this.decision = decision;
    this.approvalId = approvalId;
    this.approval = approval;
    this.waitedMs = waitedMs;
  }
}

/**
 * `failMode: 'closed'`: the guardrail service could not be reached (or refused the request), so
 * the action did not run. `cause` holds the transport error.
 */
export class GuardrailUnavailableError extends WardenError {
  constructor(what: string, cause: unknown) {
    super('guardrail_unavailable', `${what}: guardrail service unavailable, failing closed`, { cause });
  }
}

/** True for any Error, including one made in another realm (vm context, worker). */
export function isErrorLike(e: unknown): e is Error {
  return e instanceof Error || Object.prototype.toString.call(e) === '[object Error]';
}
