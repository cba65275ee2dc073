import {
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

/** Replaces U+0000, which PostgreSQL text and jsonb cannot hold, with U+FFFD (docs/decisions.md). */
export function stripNul<T>(v: T): T {
  if (typeof v === 'string') return (v.includes('\u0000') ? v.replaceAll('\u0000', '\uFFFD') : v) as T;
  if (Array.isArray(v)) return v.map(stripNul) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[stripNul(k)] = stripNul(x);
    return out as T;
  }
  return v;
}

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
  // JSON text carries U+0000 only as the escape \u0000: skip the copying walk when it is absent.
  const hasNul = record.value.includes('\\u0000');
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
