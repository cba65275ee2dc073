import {
  cleanJson,
  CloudEventRecord,
  EVALUATION_RECORDED_TYPE,
  fromCloudEvent,
  type AgentEvent,
  type DeadLetterRecord,
  type EvaluationRecord,
} from '@agent-warden/contracts';
import type { BusRecord } from '@agent-warden/bus';

/** A record of `agent-events` or `guardrail-evaluations`, decoded, or why it never can be. */
export type Decoded =
  | { kind: 'event'; record: BusRecord; projectId: string; event: AgentEvent }
  | { kind: 'evaluation'; record: BusRecord; evaluation: EvaluationRecord }
  | { kind: 'dead'; record: BusRecord; code: DeadLetterRecord['code']; reason: string };

/**
 * Replaces U+0000 and lone surrogates, which PostgreSQL text and jsonb cannot hold, with U+FFFD
 * (docs/decisions.md "What storage cannot hold"; the gateway already did for what it accepted, so
 * this guards records from other producers). Iterative, and keys such as `__proto__` stay data.
 */
export function stripNul<T>(v: T): T {
  return cleanJson(v);
}

/** JSON text carries U+0000 and lone surrogates only as escapes (`\u0000`, `\ud800`): skip the walk without one. */
const UNSAFE_ESCAPE = /\\u0000|\\ud[89a-f]/i;

/** Parses a record's JSON value as a CloudEvent and then as an agent event or evaluation record. */
export function decodeRecord(record: BusRecord): Decoded {
  if (record.value === null)
    return { kind: 'dead', record, code: 'unparseable', reason: 'record has no value' };
  let json: unknown;
  try {
    json = JSON.parse(record.value);
  } catch (err) {
    return {
      kind: 'dead',
      record,
      code: 'unparseable',
      reason: `value is not JSON: ${(err as Error).message}`,
    };
  }
  const hasNul = UNSAFE_ESCAPE.test(record.value);
  const ce = CloudEventRecord.safeParse(json);
  if (!ce.success)
    return {
      kind: 'dead',
      record,
      code: 'invalid_event',
      reason: `not a CloudEvents 1.0 record: ${ce.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  if (ce.data.type === EVALUATION_RECORDED_TYPE) {
    const data = ce.data.data as EvaluationRecord | undefined;
    if (!data || typeof data !== 'object' || typeof data.evaluationId !== 'string')
      return { kind: 'dead', record, code: 'invalid_event', reason: 'evaluation record without data' };
    return { kind: 'evaluation', record, evaluation: hasNul ? stripNul(data) : data };
  }
  try {
    const { projectId, event } = fromCloudEvent(hasNul ? stripNul(ce.data) : ce.data);
    return { kind: 'event', record, projectId, event };
  } catch (err) {
    return {
      kind: 'dead',
      record,
      code: 'invalid_event',
      reason: `not a valid agent event: ${(err as Error).message}`,
    };
  }
}

/** The dead-letter record for `d` (original value kept as text). */
export function deadLetter(
  topic: string,
  d: { record: BusRecord; code: DeadLetterRecord['code']; reason: string },
): DeadLetterRecord {
  return {
    reason: d.reason,
    code: d.code,
    sourceTopic: topic,
    partition: d.record.partition,
    offset: d.record.offset,
    key: d.record.key,
    value: d.record.value,
    failedAt: new Date().toISOString(),
  };
}
