import {
  AgentEvent,
  EVENT_TYPES,
  issuesToErrors,
  jsonTooDeepAt,
  MAX_BODY_DEPTH,
  type AgentEvent as AgentEventT,
  type RejectedEvent,
} from '@agent-warden/contracts';

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** Result of checking each event of a batch on its own. */
export interface BatchValidation {
  valid: { index: number; event: AgentEventT }[];
  rejected: RejectedEvent[];
}

/**
 * Validates each item against the AgentEvent union (docs/conventions.md#ingestion): an invalid item is
 * rejected with its index, id, a stable code and the offending paths (prefixed `events.<i>`);
 * the others stay valid. Items nested deeper than `MAX_BODY_DEPTH` are rejected before anything
 * recursive touches them; payload fields deeper than `MAX_JSON_DEPTH` by the schema. Items larger than `maxEventBytes` (JSON bytes) are `event_too_large`;
 * `bodyBytes` (the request body's length) lets small bodies skip that measurement.
 */
export function validateBatch(items: unknown[], maxEventBytes: number, bodyBytes?: number): BatchValidation {
  // No event can be larger than the whole body: skip measuring each one when the body is small enough.
  const measure = bodyBytes === undefined || bodyBytes > maxEventBytes;
  const valid: BatchValidation['valid'] = [];
  const rejected: RejectedEvent[] = [];
  items.forEach((item, index) => {
    const id =
      item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string'
        ? (item as { id: string }).id
        : null;
    // Depth first, iteratively: JSON.stringify and zod recurse, and a 10,000-deep item would
    // overflow the stack (docs/decisions.md "What storage cannot hold").
    const tooDeepAt = jsonTooDeepAt(item, MAX_BODY_DEPTH);
    if (tooDeepAt) {
      const path = ['events', index, ...tooDeepAt].join('.');
      rejected.push({
        index,
        id,
        code: 'invalid_event',
        message: `${path}: nested deeper than ${MAX_BODY_DEPTH} levels`,
        errors: [{ path, message: `nested deeper than ${MAX_BODY_DEPTH} levels` }],
      });
      return;
    }
    const bytes = measure ? Buffer.byteLength(JSON.stringify(item) ?? '', 'utf8') : 0;
    if (bytes > maxEventBytes) {
      rejected.push({
        index,
        id,
        code: 'event_too_large',
        message: `event is ${bytes} bytes; the limit is ${maxEventBytes}`,
        errors: [{ path: `events.${index}`, message: `larger than ${maxEventBytes} bytes` }],
      });
      return;
    }
    const type = item && typeof item === 'object' ? (item as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) {
      rejected.push({
        index,
        id,
        code: 'unknown_event_type',
        message: `unknown event type ${JSON.stringify(type ?? null)}`,
        errors: [{ path: `events.${index}.type`, message: `must be one of ${EVENT_TYPES.join(', ')}` }],
      });
      return;
    }
    const parsed = AgentEvent.safeParse(item);
    if (parsed.success) {
      valid.push({ index, event: parsed.data as AgentEventT });
      return;
    }
    const errors = issuesToErrors(parsed.error.issues, ['events', index]);
    rejected.push({
      index,
      id,
      code: 'invalid_event',
      message: errors.map((e) => `${e.path}: ${e.message}`).join('; '),
      errors,
    });
  });
  return { valid, rejected };
}
