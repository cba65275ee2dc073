import { POLICY_FIELDS, PolicyField } from '@agent-warden/contracts';
import { provenanceGetter } from './provenance';
import type { EvaluationInput } from './types';

/** Reads one field of an input; returns `undefined` for anything missing, never throws. */
export type FieldGetter = (input: EvaluationInput) => unknown;

const INDEX_SEGMENT = /^(0|[1-9]\d*)$/;

/** The fields a condition may name, as a message fragment. */
export const ALLOWED_FIELDS_TEXT = `${POLICY_FIELDS.join(', ')}, arguments.<path> or provenance.arguments.<path>`;

/** True for the fixed fields, `arguments.<path>` and `provenance.arguments.<path>` (the contracts' `PolicyField` rule). */
export function isKnownField(field: string): boolean {
  return PolicyField.safeParse(field).success;
}

/** The fixed fields read straight from the input (the data-flow ones are in `provenance.ts`). */
type PlainField = Exclude<
  (typeof POLICY_FIELDS)[number],
  'provenance.tainted' | 'provenance.instructed' | 'session.untrustedInstructions'
>;

const FIXED: Record<PlainField, FieldGetter> = {
  'action.type': (i) => i.action?.type,
  'action.name': (i) => i.action?.name,
  'resource.type': (i) => i.resource?.type,
  'resource.environment': (i) => i.resource?.environment,
  'tool.name': (i) => i.tool?.name,
  riskLevel: (i) => i.riskLevel,
  'agent.key': (i) => i.agent?.key,
};

/** One step of an argument path: an own property, or an array index for numeric segments. */
function step(current: unknown, key: string, index: number): unknown {
  if (current === null || typeof current !== 'object') return undefined;
  if (Array.isArray(current)) return index >= 0 ? current[index] : undefined;
  return Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
}

/**
 * Compiles a field name into a getter, once per condition. `arguments.a.b.0` walks own properties
 * of the arguments object; numeric segments index arrays, other segments on arrays give
 * `undefined`. Inherited properties (`constructor`, `__proto__`) are never read. The data-flow
 * fields (`provenance.*`, `session.untrustedInstructions`) read the request's provenance through
 * `provenance.ts`. Throws for an unknown field (callers validate first).
 */
export function compileField(field: string): FieldGetter {
  const fixed = Object.hasOwn(FIXED, field) ? (FIXED as Record<string, FieldGetter>)[field] : undefined;
  if (fixed) return fixed;
  const flow = provenanceGetter(field);
  if (flow) return flow;
  if (!isKnownField(field)) throw new Error(`unknown field "${field}"`);
  const keys = field.split('.').slice(1);
  const indexes = keys.map((k) => (INDEX_SEGMENT.test(k) ? Number(k) : -1));
  if (keys.length === 1) {
    const k0 = keys[0] as string;
    return (i) => step(i.arguments, k0, -1);
  }
  if (keys.length === 2) {
    const [k0, k1] = keys as [string, string];
    const i1 = indexes[1] as number;
    return (i) => step(step(i.arguments, k0, -1), k1, i1);
  }
  return (i) => {
    let current: unknown = step(i.arguments, keys[0] as string, -1);
    for (let n = 1; n < keys.length && current !== undefined; n++) {
      current = step(current, keys[n] as string, indexes[n] as number);
    }
    return current;
  };
}
