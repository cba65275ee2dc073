import {
  Approval,
  EventBatchResponse,
  GuardDecision,
  IdentifyResponse,
  type CapabilityDeclaration,
  type GuardRequestInput,
  type IdentifyRequest,
} from '@agent-warden/contracts';
import { ApiError } from './errors';
import type { Logger } from './logger';
import type { Transport } from './transport';

/** Longest long poll the client asks for, seconds (the contract allows up to 60). */
export const APPROVAL_POLL_SECONDS = 20;

/** A schema that can check an answer (the zod schemas of `@agent-warden/contracts`). */
interface Checker<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

/**
 * The service's endpoints used by the client, typed by the contracts. Answers are checked against
 * the contract schemas; a malformed answer throws `ApiError`. Every method throws the typed
 * transport errors of {@link Transport.request}.
 */
export class WardenApi {
  constructor(
    private readonly transport: Transport,
    private readonly logger: Logger,
  ) {}

  /** `POST /v1/agents/identify`: the agent and version ids (idempotent). */
  async identify(body: IdentifyRequest): Promise<IdentifyResponse> {
    const res = await this.transport.request({ method: 'POST', path: '/v1/agents/identify', body });
    return check(IdentifyResponse, res, 'identify');
  }

  /** `PUT /v1/agents/{agentId}/versions/{agentVersionId}/capabilities`: replaces the declared set. */
  async declareCapabilities(
    agentId: string,
    agentVersionId: string,
    body: CapabilityDeclaration,
  ): Promise<void> {
    const path = `/v1/agents/${encodeURIComponent(agentId)}/versions/${encodeURIComponent(agentVersionId)}/capabilities`;
    await this.transport.request({ method: 'PUT', path, body });
  }

  /**
   * `POST /v1/events`: the accepted count and the rejected events. An unreadable 2xx answer is
   * taken as "all accepted" (the service did take the batch) and logged.
   */
  async sendEvents(events: unknown[]): Promise<EventBatchResponse> {
    const res = await this.transport.request({ method: 'POST', path: '/v1/events', body: { events } });
    const parsed = EventBatchResponse.safeParse(res);
    if (parsed.success) return parsed.data;
    this.logger.warn('warden events answer unreadable, assuming accepted', { events: events.length });
    return { accepted: events.length, rejected: [] };
  }

  /**
   * `POST /v1/guardrails/evaluate`: the decision. A tool call's check (not a dry run) sends its
   * `toolCallId` as `Idempotency-Key`, so a retry after a lost answer records one evaluation.
   */
  async evaluate(body: GuardRequestInput): Promise<GuardDecision> {
    const key = body.toolCallId && !body.dryRun ? { 'idempotency-key': body.toolCallId } : undefined;
    const res = await this.transport.request({
      method: 'POST',
      path: '/v1/guardrails/evaluate',
      body,
      ...(key && { headers: key }),
    });
    return check(GuardDecision, res, 'evaluate');
  }

  /** `GET /v1/approvals/{id}?waitSeconds=N`: the approval, long-polling up to `waitSeconds` while pending. */
  async getApproval(approvalId: string, waitSeconds: number): Promise<Approval> {
    const wait = Math.max(0, Math.min(60, Math.ceil(waitSeconds)));
    const res = await this.transport.request({
      method: 'GET',
      path: `/v1/approvals/${encodeURIComponent(approvalId)}?waitSeconds=${wait}`,
      extraTimeoutMs: wait * 1000,
    });
    return check(Approval, res, 'approval');
  }
}

function check<T>(schema: Checker<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ApiError(`${what}: answer does not match the contract: ${parsed.error.message}`);
}
