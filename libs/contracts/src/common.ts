import { z } from 'zod';
import { jsonTooDeepAt, MAX_JSON_DEPTH } from './json-safety';

/** UUID of any version, lower- or upper-case (RFC 9562). */
export const Uuid = z.uuid();

/**
 * Client-made identifier for events, runs and sessions: a UUIDv7 (RFC 9562 §5.7), time ordered
 * so that retries are idempotent and index inserts stay local (docs/architecture.md#identifiers).
 */
export const ClientId = z.uuid({ version: 'v7', message: 'must be a UUIDv7 (RFC 9562)' });

/** RFC 3339 timestamp with offset, e.g. `2026-11-21T15:18:04.123Z`. */
export const Timestamp = z.iso.datetime({ offset: true });

/** Earliest instant a client-given time may name: 1970-01-01T00:00:00Z (ms since the epoch). */
export const TIME_MIN_MS = 0;
/** Latest instant a client-given time may name: 9999-01-01T00:00:00Z (ms since the epoch). */
export const TIME_MAX_MS = Date.UTC(9999, 0, 1);

/**
 * A client-given time that is stored or computed with: an event's `time` and a read query's bounds
 * (`from`, `to`). An RFC 3339 {@link Timestamp} whose instant lies in [1970-01-01T00:00:00Z,
 * 9999-01-01T00:00:00Z]. PostgreSQL has no year 0 and JavaScript writes 5-digit years as `+010000`,
 * which PostgreSQL refuses and `Date` reads back as Invalid Date; routes also derive one bound by
 * subtracting a window. Without the bound, `to=0001-01-02T00:00:00Z` or an event at
 * `0001-01-01T00:00:00+14:00` (year 0 in UTC) made a 500, or an accepted event the projector could
 * not store (found by `npm run fuzz`).
 */
export const BoundedTimestamp = Timestamp.refine(
  (t) => {
    const ms = Date.parse(t);
    return ms >= TIME_MIN_MS && ms <= TIME_MAX_MS;
  },
  { message: 'must be between 1970-01-01T00:00:00Z and 9999-01-01T00:00:00Z' },
);

/** Guard decisions (docs/architecture.md#guard-decision). */
export const Decision = z.enum(['allow', 'warn', 'block', 'require_approval']);
export type Decision = z.infer<typeof Decision>;

/** Severity rank of a decision: block > require_approval > warn > allow (docs/architecture.md#guard-decision). */
export const DECISION_SEVERITY: Readonly<Record<Decision, number>> = {
  allow: 0,
  warn: 1,
  require_approval: 2,
  block: 3,
};

/** Client modes: `monitor` never stops an action; `enforce` applies the decision. */
export const Mode = z.enum(['monitor', 'enforce']);
export type Mode = z.infer<typeof Mode>;

/** Ordered risk levels: low < medium < high < critical (docs/architecture.md#risk-levels). */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'critical']);
export type RiskLevel = z.infer<typeof RiskLevel>;

/** Rank of a risk level, for `gte` / `lte` comparisons. */
export const RISK_RANK: Readonly<Record<RiskLevel, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Adds an issue at the first place `v` nests deeper than {@link MAX_JSON_DEPTH} (checked iteratively). */
function checkDepth(v: unknown, ctx: z.core.$RefinementCtx): void {
  const at = jsonTooDeepAt(v, MAX_JSON_DEPTH);
  if (at) ctx.addIssue({ code: 'custom', path: at, message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
}

/**
 * Free-form JSON object (string keys), nested at most {@link MAX_JSON_DEPTH} levels
 * (docs/decisions.md "What storage cannot hold"). Parsed as is, not copied: keys such as
 * `__proto__` and `constructor` stay data (zod's record would drop a `__proto__` key).
 */
export const JsonObject = z
  .custom<Record<string, unknown>>(isJsonObject, { message: 'expected an object' })
  .superRefine(checkDepth)
  .meta({
    override: { type: 'object', additionalProperties: {} },
    description: `JSON object, nested at most ${MAX_JSON_DEPTH} levels`,
  });
export type JsonObject = Record<string, unknown>;

/** Any JSON value nested at most {@link MAX_JSON_DEPTH} levels (payloads such as a tool's `result`). */
export const JsonValue = z
  .unknown()
  .superRefine(checkDepth)
  .meta({ description: `any JSON value, nested at most ${MAX_JSON_DEPTH} levels` });

/** The most severe of the given decisions, or `fallback` when there are none. */
export function mostSevere(decisions: Iterable<Decision>, fallback: Decision): Decision {
  let best: Decision | undefined;
  for (const d of decisions)
    if (best === undefined || DECISION_SEVERITY[d] > DECISION_SEVERITY[best]) best = d;
  return best ?? fallback;
}

/**
 * Maps a policy decision through the client's mode (docs/architecture.md#guard-decision): in enforce mode
 * the effective decision equals the policy decision; in monitor mode it is `allow` for `allow`
 * and `warn` for everything else.
 */
export function effectiveDecision(policyDecision: Decision, mode: Mode): Decision {
  if (mode === 'enforce') return policyDecision;
  return policyDecision === 'allow' ? 'allow' : 'warn';
}

/**
 * An integer query parameter: `z.coerce.number()` would read an empty value (`?limit=`) as 0, a
 * valid number, so the empty string becomes NaN first and is a 400 like any other non-number
 * (RFC 9457 problem naming the parameter), while an absent parameter stays absent.
 */
export function queryInt(min: number, max: number) {
  return z.preprocess((v) => (v === '' ? Number.NaN : v), z.coerce.number().int().min(min).max(max));
}
