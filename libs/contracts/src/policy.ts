import { z } from 'zod';
import { Decision } from './common';

/**
 * Fields a leaf condition may read (docs/architecture.md#guardrail-policies); `arguments.<path>` reads the call's
 * arguments and `provenance.arguments.<path>` the origin of one argument leaf (docs/guardrails.md
 * "Data-flow conditions"). The three provenance counts are absent when the request carries no
 * `provenance` (docs/provenance.md).
 */
export const POLICY_FIELDS = [
  'action.type',
  'action.name',
  'resource.type',
  'resource.environment',
  'tool.name',
  'riskLevel',
  'agent.key',
  /** Number of argument leaves that are tainted (found in tool output, not named by the user). */
  'provenance.tainted',
  /** Number of tainted leaves whose tool output carried instructions aimed at the model. */
  'provenance.instructed',
  /** Tool results of the session so far that carried instructions aimed at the model. */
  'session.untrustedInstructions',
] as const;

/** `arguments.<path>`: a dot path into the call's arguments. */
export const ARGUMENT_FIELD = /^arguments(\.[^.]+)+$/;
/** `provenance.arguments.<path>`: the origin (`user | tool | both | none`) of the argument leaf at `<path>`. */
export const PROVENANCE_ARGUMENT_FIELD = /^provenance\.arguments(\.[^.]+)+$/;

/**
 * An operator's name. The operators and their values are defined once, by the operator registry
 * of `@agent-warden/policy` (`validatePolicy` checks the name and value); `GET /v1/policy-operators`
 * lists them (docs/decisions.md "Operator registry").
 */
export const ConditionOp = z.string().min(1).meta({
  description:
    'An operator name: eq, in, glob, regex, gte, lte, exists, contains, … (GET /v1/policy-operators lists them all)',
});
export type ConditionOp = z.infer<typeof ConditionOp>;

export const PolicyField = z
  .string()
  .refine(
    (f) =>
      (POLICY_FIELDS as readonly string[]).includes(f) ||
      ARGUMENT_FIELD.test(f) ||
      PROVENANCE_ARGUMENT_FIELD.test(f),
    {
      message: `must be one of ${POLICY_FIELDS.join(', ')}, arguments.<path> or provenance.arguments.<path>`,
    },
  );

/** A leaf condition `{ field, op, value }`. */
export const Condition = z.object({ field: PolicyField, op: ConditionOp, value: z.unknown().optional() });
export type Condition = z.infer<typeof Condition>;

/** A match tree of `all` / `any` / `not` over leaf conditions. */
export type MatchNode = Condition | { all: MatchNode[] } | { any: MatchNode[] } | { not: MatchNode };
export const MatchNode: z.ZodType<MatchNode> = z
  .lazy(() =>
    z
      .union([
        z.object({ all: z.array(MatchNode).min(1) }).strict(),
        z.object({ any: z.array(MatchNode).min(1) }).strict(),
        z.object({ not: MatchNode }).strict(),
        Condition.strict(),
        // The four shapes are mutually exclusive (strict objects): `oneOf` in the OpenAPI document.
      ])
      .meta({ unionOneOf: true }),
  )
  .meta({ id: 'MatchNode' });

/** Approval settings of a `require_approval` policy. Timeout outcome defaults to `deny` (fail closed). */
export const PolicyApproval = z.object({
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(300),
  onTimeout: z.enum(['deny', 'approve']).default('deny'),
});

/** A policy as data (docs/architecture.md#guardrail-policies). */
export const PolicyInput = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    enabled: z.boolean().default(true),
    decision: Decision,
    match: MatchNode,
    approval: PolicyApproval.optional(),
  })
  .meta({ id: 'PolicyInput' });
export type PolicyInput = z.infer<typeof PolicyInput>;
