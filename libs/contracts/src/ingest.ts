import { z } from 'zod';
import { AgentEvent } from './events';

/** Default limits of `POST /v1/events` (configurable per gateway). */
export const INGEST_LIMITS = {
  /** Largest request body, bytes. Larger → 413. */
  maxBodyBytes: 5 * 1024 * 1024,
  /** Most events in one request. More → 413. */
  maxEventsPerBatch: 500,
  /** Largest single event, bytes of its JSON. Larger → that event is rejected (`event_too_large`). */
  maxEventBytes: 256 * 1024,
} as const;

/**
 * `POST /v1/events` body. Events are validated one by one against {@link AgentEvent}, so the
 * top-level schema accepts any objects and the per-event result goes to `rejected`.
 */
export const EventBatchRequest = z
  .object({ events: z.array(z.unknown()).min(1) })
  .meta({ id: 'EventBatchRequest', description: 'A batch of events; each item must be an AgentEvent.' });
export type EventBatchRequest = { events: unknown[] };

/** Why one event of a batch was not accepted. */
export const RejectedEvent = z
  .object({
    index: z.number().int().min(0),
    id: z.string().nullable(),
    code: z.enum(['invalid_event', 'unknown_event_type', 'event_too_large', 'forbidden_agent']),
    message: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'RejectedEvent' });
export type RejectedEvent = z.infer<typeof RejectedEvent>;

/** `POST /v1/events` response (202): accepted count and the rejected events with reasons. */
export const EventBatchResponse = z
  .object({
    accepted: z.number().int().min(0),
    rejected: z.array(RejectedEvent),
  })
  .meta({ id: 'EventBatchResponse' });
export type EventBatchResponse = z.infer<typeof EventBatchResponse>;

export { AgentEvent };
