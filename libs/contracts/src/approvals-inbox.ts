import { z } from 'zod';
import { JsonObject, Timestamp } from './common';
import { Approval, ApprovalStatus } from './guard';
import { Provenance } from './provenance';

/** `GET /v1/approvals` query: `pending` (newest first), `decided` (latest decision first) or all. */
export const ApprovalListQuery = z.object({
  status: z.enum(['pending', 'decided']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
});
export type ApprovalListQuery = z.infer<typeof ApprovalListQuery>;

/**
 * An approval as a person sees it in the inbox: the approval with the call it holds back
 * (`request`: action, tool, resource, riskLevel and arguments as evaluated; `provenance`: where
 * those arguments came from), the agent, the session and the policy that asked for it.
 */
export const ApprovalInboxItem = Approval.extend({
  request: JsonObject,
  /** Where each argument of the held call came from (docs/provenance.md); null when the request sent none. */
  provenance: Provenance.nullable(),
  agent: z.object({ id: z.string(), key: z.string().nullable(), name: z.string().nullable() }),
  session: z.object({ id: z.string(), status: z.string(), startedAt: Timestamp }).nullable(),
  policy: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
}).meta({ id: 'ApprovalInboxItem' });
export type ApprovalInboxItem = z.infer<typeof ApprovalInboxItem>;

/**
 * One state change of an approval (docs/architecture.md#approvals: every transition stays on the timeline).
 * `fromStatus` is null for the creation (→ `pending`); `actor` is `gateway` (creation),
 * `user:<email>`, `api-key:<id>` or `system:timeout`.
 */
export const ApprovalTransitionView = z
  .object({
    id: z.string(),
    approvalId: z.string(),
    sessionId: z.string().nullable(),
    toolName: z.string().nullable(),
    fromStatus: ApprovalStatus.nullable(),
    toStatus: ApprovalStatus,
    actor: z.string(),
    comment: z.string().nullable(),
    at: Timestamp,
  })
  .meta({ id: 'ApprovalTransition' });
export type ApprovalTransitionView = z.infer<typeof ApprovalTransitionView>;

/** Data of the `snapshot` event of `GET /v1/approvals/stream`: the pending approvals at connect. */
export const ApprovalStreamSnapshot = z
  .object({ items: z.array(ApprovalInboxItem) })
  .meta({ id: 'ApprovalStreamSnapshot' });
export type ApprovalStreamSnapshot = z.infer<typeof ApprovalStreamSnapshot>;

/** Data of an `approval` event of `GET /v1/approvals/stream`: the transition and the approval after it. */
export const ApprovalStreamEvent = z
  .object({ transition: ApprovalTransitionView, approval: ApprovalInboxItem })
  .meta({ id: 'ApprovalStreamEvent' });
export type ApprovalStreamEvent = z.infer<typeof ApprovalStreamEvent>;
