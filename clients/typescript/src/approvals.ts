import type { Approval, GuardDecision } from '@agent-warden/contracts';
import { APPROVAL_POLL_SECONDS } from './api';
import { sleep } from './backoff';
import { ApprovalDeniedError, ApprovalTimeoutError, GuardrailUnavailableError, WardenError } from './errors';
import { errorFields, type Logger } from './logger';
import type { EventRecorder, EventScope } from './recorder';
import { truncate } from './serialize';

/** Extra wait after the approval's `expiresAt` before the client gives up, ms (the service expires it). */
export const APPROVAL_EXPIRY_MARGIN_MS = 30_000;
/** Shortest time between two polls, ms (guards against a service that does not long-poll). */
const MIN_POLL_INTERVAL_MS = 250;

/** What {@link awaitApproval} needs. */
export interface ApprovalDeps {
  api: { getApproval(approvalId: string, waitSeconds: number): Promise<Approval> };
  recorder: EventRecorder;
  logger: Logger;
  /** Client-side cap on the wait, ms; default: `expiresAt` + {@link APPROVAL_EXPIRY_MARGIN_MS}. */
  approvalTimeoutMs?: number;
}

/** The approval being waited for. */
export interface ApprovalWait {
  decision: GuardDecision;
  approval: NonNullable<GuardDecision['approval']>;
  /** `tool <name>` or `action <name>`, for messages. */
  what: string;
  toolCallId?: string;
  scope: EventScope;
}

/**
 * Emits `agent.approval.requested`, long-polls `GET /v1/approvals/{id}?waitSeconds=20` until the
 * status is not `pending` (or the deadline passes), emits `agent.approval.resolved` with
 * `waitedMs`, and returns the approval when it is `approved` (or `expired` with
 * `onTimeout: 'approve'`). Throws `ApprovalDeniedError` (denied, cancelled),
 * `ApprovalTimeoutError` (expired, or the client stopped waiting) or `GuardrailUnavailableError`
 * (the approval cannot be read: 401, 403, 404). A poll that fails retryably is repeated until the
 * deadline.
 */
export async function awaitApproval(deps: ApprovalDeps, wait: ApprovalWait): Promise<Approval> {
  const { approval: ref, decision, scope } = wait;
  const requestedId = deps.recorder.emit(
    'agent.approval.requested',
    {
      approvalId: ref.id,
      evaluationId: decision.evaluationId,
      toolCallId: wait.toolCallId,
      expiresAt: ref.expiresAt,
    },
    scope,
  );
  const started = Date.now();
  const expiresAt = Date.parse(ref.expiresAt);
  const byExpiry = Number.isNaN(expiresAt) ? Infinity : expiresAt + APPROVAL_EXPIRY_MARGIN_MS;
  const deadline = Math.min(
    byExpiry,
    deps.approvalTimeoutMs === undefined ? Infinity : started + deps.approvalTimeoutMs,
  );
  deps.logger.info('warden waiting for approval', {
    approvalId: ref.id,
    what: wait.what,
    expiresAt: ref.expiresAt,
  });

  let last: Approval | undefined;
  while (Date.now() < deadline) {
    const pollStarted = Date.now();
    const remainingS = Math.max(1, Math.floor((deadline - pollStarted) / 1000));
    try {
      last = await deps.api.getApproval(ref.id, Math.min(APPROVAL_POLL_SECONDS, remainingS));
      if (last.status !== 'pending') break;
    } catch (e) {
      if (e instanceof WardenError && !e.retryable) {
        deps.logger.error('warden approval unreadable', { approvalId: ref.id, ...errorFields(e) });
        throw new GuardrailUnavailableError(wait.what, e);
      }
      deps.logger.warn('warden approval poll failed, retrying', { approvalId: ref.id, ...errorFields(e) });
    }
    const elapsed = Date.now() - pollStarted;
    if (elapsed < MIN_POLL_INTERVAL_MS)
      await sleep(Math.min(MIN_POLL_INTERVAL_MS - elapsed, deadline - Date.now()));
  }

  const waitedMs = Date.now() - started;
  const finalStatus = last && last.status !== 'pending' ? last.status : undefined;
  deps.recorder.emit(
    'agent.approval.resolved',
    {
      approvalId: ref.id,
      status: finalStatus ?? 'expired',
      decidedBy: truncate(last?.decidedBy ?? undefined, 200),
      comment: finalStatus
        ? truncate(last?.comment ?? undefined, 2000)
        : `client stopped waiting after ${waitedMs} ms; the approval may still be pending`,
      waitedMs,
    },
    { ...scope, parentId: requestedId },
  );
  deps.logger.info('warden approval resolved', {
    approvalId: ref.id,
    status: finalStatus ?? 'client_timeout',
    waitedMs,
  });

  if (finalStatus === 'approved' && last) return last;
  if (finalStatus === 'expired' && last?.onTimeout === 'approve') return last;
  if ((finalStatus === 'denied' || finalStatus === 'cancelled') && last) {
    throw new ApprovalDeniedError(decision, last, wait.what);
  }
  throw new ApprovalTimeoutError(decision, ref.id, waitedMs, last);
}
