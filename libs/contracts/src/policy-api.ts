import { z } from 'zod';
import { Decision, JsonObject, RiskLevel, Timestamp, Uuid, BoundedTimestamp } from './common';
import { INT4_MAX } from './json-safety';
import { Resource } from './events';
import { MatchNode, PolicyInput } from './policy';
import { Provenance } from './provenance';

/**
 * Bodies of the policy management API (`/v1/policies…`, `/v1/projects/current/settings`,
 * `/v1/audit`, dry run and backtest; docs/architecture.md#guardrail-policies). Policy bodies are checked
 * by `validatePolicy` of `@agent-warden/policy`, which gives exact paths inside the match tree;
 * `PolicyInput` here documents the shape.
 */

/** Top-level keys a policy body may hold; any other key is a 400 naming it (a typo never passes silently). */
export const POLICY_INPUT_KEYS = ['name', 'description', 'enabled', 'decision', 'match', 'approval'] as const;

/** Most policies in one import (`POST /v1/policies/import`). */
export const MAX_IMPORT_POLICIES = 500;

/** `format` of an exported / importable policy set. */
export const POLICY_SET_FORMAT = 'agent-warden.policies/v1';

/** Query booleans: exactly `true` or `false`. */
const QueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Approval settings as stored (defaults applied). */
export const PolicyApprovalView = z
  .object({ timeoutSeconds: z.number().int(), onTimeout: z.enum(['deny', 'approve']) })
  .meta({ id: 'PolicyApprovalSettings' });

/** A stored policy. `version` bumps on every change; `deletedAt` is set by a (soft) delete. */
export const PolicyView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  decision: Decision,
  match: MatchNode,
  approval: PolicyApprovalView.nullable(),
  version: z.number().int().min(1),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: Timestamp.nullable(),
});
export type PolicyView = z.infer<typeof PolicyView>;

/** The match tree as one line of text, as reasons show it (`@agent-warden/policy`'s `describeMatch`). */
const Rule = z.string().meta({
  description: 'The match tree as text, e.g. `tool.name = "bash" and arguments.command matches /rm\\s+-rf/`',
});

/** A stored policy as the API answers it: the stored fields plus `rule`, the text of its match tree. */
export const DescribedPolicyView = PolicyView.extend({ rule: Rule }).meta({ id: 'Policy' });
export type DescribedPolicyView = z.infer<typeof DescribedPolicyView>;

/** One kept version of a policy (what an evaluation naming `(policyId, version)` matched). */
export const PolicyVersionView = z.object({
  policyId: z.string(),
  version: z.number().int().min(1),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  decision: Decision,
  match: MatchNode,
  approval: PolicyApprovalView.nullable(),
  createdAt: Timestamp,
  /** `api-key:<id>` of the key that made the version. */
  createdBy: z.string(),
});
export type PolicyVersionView = z.infer<typeof PolicyVersionView>;

/** A kept version as the API answers it, with `rule`, the text of its match tree. */
export const DescribedPolicyVersionView = PolicyVersionView.extend({ rule: Rule }).meta({
  id: 'PolicyVersion',
});
export type DescribedPolicyVersionView = z.infer<typeof DescribedPolicyVersionView>;

/** `POST /v1/policies/validate` answer: always 200 for a JSON body; `valid` says whether a create would accept it. */
export const PolicyValidationView = z
  .object({
    valid: z.boolean(),
    /** The match tree as text when the tree itself is valid (even if other parts are not), else null. */
    rule: z.string().nullable(),
    /** What a create would reject, at dot paths (`match.all.1.value`); empty when valid. */
    errors: z.array(z.object({ path: z.string(), message: z.string() })),
  })
  .meta({ id: 'PolicyValidation' });
export type PolicyValidationView = z.infer<typeof PolicyValidationView>;

/** One operator of the registry (`GET /v1/policy-operators`), for editors and docs. */
export const PolicyOperatorView = z
  .object({
    /** The name used in a condition's `op`. */
    name: z.string(),
    /** The kind of value, so an editor offers the right input. */
    operand: z.enum(['scalar', 'list', 'pattern', 'string', 'number', 'flag']),
    /** False when `value` may be left out (`exists`). */
    valueRequired: z.boolean(),
    /** The value as a person reads it, e.g. `non-empty array of strings / numbers / booleans`. */
    operandText: z.string(),
    /** Completes "matches when the field's value …". */
    summary: z.string(),
    /** An example condition and its text as reasons show it. */
    example: z.object({ field: z.string(), op: z.string(), value: z.unknown(), text: z.string() }),
  })
  .meta({ id: 'PolicyOperator' });
export type PolicyOperatorView = z.infer<typeof PolicyOperatorView>;

/** `GET /v1/policy-operators` answer, in the registry's order. */
export const PolicyOperatorList = z
  .object({ items: z.array(PolicyOperatorView) })
  .meta({ id: 'PolicyOperatorList' });
export type PolicyOperatorList = z.infer<typeof PolicyOperatorList>;

/** `GET /v1/policies` query: filters, then keyset paging by name. */
export const PolicyListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().max(1000).optional(),
  enabled: QueryBool.optional(),
  decision: Decision.optional(),
  /** Case-insensitive substring of the name. */
  nameContains: z.string().min(1).max(200).optional(),
  includeDeleted: QueryBool.default(false),
});

/** `GET /v1/policies/{id}/versions` query: newest first; `cursor` = the last version number seen. */
export const PolicyVersionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.coerce.number().int().min(1).max(INT4_MAX).optional(),
});

/** `PUT /v1/policies/{id}`: the whole policy; `expectedVersion` (optional) makes it conditional (409 if stale). */
export const PolicyUpdateRequest = PolicyInput.extend({
  expectedVersion: z.number().int().min(1).max(INT4_MAX).optional(),
}).meta({ id: 'PolicyUpdateRequest' });

/** A policy set (import body, export answer, `examples/policies/*.json`). */
export const PolicySet = z
  .object({
    format: z.literal(POLICY_SET_FORMAT).optional(),
    description: z.string().max(2000).optional(),
    /** When present, import also sets the project's default decision. */
    defaultDecision: Decision.optional(),
    policies: z.array(PolicyInput).min(1).max(MAX_IMPORT_POLICIES),
  })
  .meta({ id: 'PolicySet' });

/** `POST /v1/policies/import` body: a policy set, validated as a whole (all or nothing). */
export const PolicyImportRequest = PolicySet.extend({
  /** A policy whose name exists already: `fail` (409, default), `update` (new version if it differs) or `skip`. */
  onConflict: z.enum(['fail', 'update', 'skip']).default('fail'),
}).meta({ id: 'PolicyImportRequest' });

/** The import body before each policy is checked by `validatePolicy` (paths `policies.<i>.…`). */
export const PolicyImportEnvelope = PolicyImportRequest.extend({
  policies: z.array(z.unknown()).min(1).max(MAX_IMPORT_POLICIES),
});

export const PolicyImportResult = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    skipped: z.number().int(),
    defaultDecision: Decision,
    policies: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        version: z.number().int(),
        result: z.enum(['created', 'updated', 'unchanged', 'skipped']),
      }),
    ),
  })
  .meta({ id: 'PolicyImportResult' });
export type PolicyImportResult = z.infer<typeof PolicyImportResult>;

/** `GET /v1/policies/export` answer: importable as is (no ids, versions or timestamps per policy). */
export const PolicyExport = PolicySet.extend({
  format: z.literal(POLICY_SET_FORMAT),
  exportedAt: Timestamp,
  defaultDecision: Decision,
  policies: z.array(PolicyInput),
}).meta({ id: 'PolicyExport' });

export const PolicyExportQuery = z.object({ includeDisabled: QueryBool.default(true) });

/** `GET/PUT /v1/projects/current/settings`: the decision when no enabled policy matches. */
export const ProjectSettings = z
  .object({ defaultDecision: Decision })
  .strict()
  .meta({ id: 'ProjectSettings' });

/** One audit record: who (API key) did what to which entity, with the entity before and after. */
export const AuditEntryView = z
  .object({
    id: z.string(),
    at: Timestamp,
    actor: z.string(),
    actorKeyId: z.string().nullable(),
    action: z.string(),
    entityType: z.string(),
    entityId: z.string(),
    before: z.unknown().nullable(),
    after: z.unknown().nullable(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntryView = z.infer<typeof AuditEntryView>;

export const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
  entityType: z.string().max(100).optional(),
  entityId: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
});

/** A call to try a policy on: the policy-relevant part of a `GuardRequest` plus the agent's key. */
export const PolicyTestInput = z
  .object({
    action: z
      .object({ type: z.string().max(200).optional(), name: z.string().max(200).optional() })
      .optional(),
    tool: z.object({ name: z.string().min(1).max(200) }).optional(),
    resource: Resource.optional(),
    riskLevel: RiskLevel.optional(),
    arguments: JsonObject.optional(),
    /** Where each argument leaf came from, as a client would send it (docs/provenance.md). */
    provenance: Provenance.optional(),
    agent: z.object({ key: z.string().max(200) }).optional(),
  })
  .meta({ id: 'PolicyTestInput' });
export type PolicyTestInput = z.infer<typeof PolicyTestInput>;

/** The policy to try: a draft (`policy`, not stored) or a stored one (`policyId`); exactly one. */
const PolicyUnderTest = {
  policy: PolicyInput.optional(),
  policyId: Uuid.optional(),
};

/**
 * "Exactly one of `policy` or `policyId`" in the OpenAPI document. The route checks it (400 naming
 * `policy`): the schema carries no refinement because the routes `.omit()` the draft.
 */
const exactlyOnePolicy = {
  oneOf: [
    { required: ['policy'], not: { required: ['policyId'] } },
    { required: ['policyId'], not: { required: ['policy'] } },
  ],
};

/** `POST /v1/policies/dry-run` body. */
export const DryRunRequest = z
  .object({ ...PolicyUnderTest, input: PolicyTestInput })
  .meta({ id: 'PolicyDryRunRequest', override: exactlyOnePolicy });

/** The policy a dry run or backtest tried (`id`/`version` null for a draft). */
const TriedPolicy = z.object({
  id: z.string().nullable(),
  version: z.number().int().nullable(),
  name: z.string(),
  decision: Decision,
  /** The whole rule as text, e.g. `tool.name = "bash" and arguments.command matches /…/`. */
  description: z.string(),
});

export const DryRunResponse = z
  .object({
    matched: z.boolean(),
    /** The policy's decision when it matched, else null. */
    decision: Decision.nullable(),
    reason: z.string().nullable(),
    policy: TriedPolicy,
  })
  .meta({ id: 'PolicyDryRunResponse' });

/** Rows read per keyset page of a backtest scan. */
export const BACKTEST_PAGE_ROWS = 5_000;
/** Most stored tool calls one backtest reads; beyond it the answer says `truncated`. */
export const BACKTEST_MAX_SCAN = 1_000_000;
/** Window when `from` is not given: the 7 days before `to`. */
export const BACKTEST_DEFAULT_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** `POST /v1/policies/backtest` body: the draft (or stored policy) over the stored `agent.tool.started` events in [from, to). */
export const BacktestRequest = z
  .object({
    ...PolicyUnderTest,
    from: BoundedTimestamp.optional(),
    to: BoundedTimestamp.optional(),
    /** Matching events per page. */
    limit: z.number().int().min(1).max(1000).default(100),
    /** `nextCursor` of the previous page (same policy and window). */
    cursor: z.string().max(500).optional(),
  })
  .meta({ id: 'PolicyBacktestRequest', override: exactlyOnePolicy });

export const BacktestMatch = z
  .object({
    eventId: z.string(),
    sessionId: z.string(),
    runId: z.string().nullable(),
    agentId: z.string(),
    agentKey: z.string().nullable(),
    time: Timestamp,
    toolName: z.string().nullable(),
    arguments: JsonObject.nullable(),
    /** The provenance of the call's stored evaluation (docs/provenance.md), null when it had none. */
    provenance: Provenance.nullable(),
    reason: z.string(),
  })
  .meta({ id: 'PolicyBacktestMatch' });
export type BacktestMatch = z.infer<typeof BacktestMatch>;

const DecisionCounts = z.object({
  allow: z.number().int(),
  warn: z.number().int(),
  require_approval: z.number().int(),
  block: z.number().int(),
});

export const BacktestResponse = z
  .object({
    policy: TriedPolicy,
    window: z.object({ from: Timestamp, to: Timestamp }),
    /** Stored tool calls read in the window. */
    scanned: z.number().int(),
    /**
     * Of them, the calls whose stored evaluation (same session and `toolCallId`) carried
     * provenance: data-flow conditions can only hold for these (docs/guardrails.md "Data-flow conditions").
     */
    withProvenance: z.number().int(),
    /** Of them, the calls the policy matches. */
    matched: z.number().int(),
    /**
     * The project's decision for each scanned call had the policy been in place (enabled, next to
     * the project's enabled policies, replacing its stored version); the default decision when
     * nothing matches.
     */
    byDecision: DecisionCounts,
    /** Matching calls, oldest first, `limit` per page. */
    items: z.array(BacktestMatch),
    nextCursor: z.string().nullable(),
    /** True when the window held more than the scan limit; counts cover the first calls only. */
    truncated: z.boolean(),
    tookMs: z.number().int(),
  })
  .meta({ id: 'PolicyBacktestResponse' });
export type BacktestResponse = z.infer<typeof BacktestResponse>;
