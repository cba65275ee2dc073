import { z } from 'zod';
import { AgentEvent } from './events';

/**
 * A CloudEvents 1.0 structured-mode JSON record (https://github.com/cloudevents/spec, v1.0.2) as
 * written to Kafka. Envelope fields that CloudEvents has no attribute for travel as extension
 * attributes (lower-case alphanumeric names, CloudEvents §3.1.1): `projectid`, `sessionid`,
 * `agentid`, `agentversionid`, `sequence`, `parentid`.
 */
export const CloudEventRecord = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  source: z.string().min(1),
  type: z.string().min(1),
  time: z.string().optional(),
  subject: z.string().optional(),
  datacontenttype: z.literal('application/json').optional(),
  data: z.unknown(),
  projectid: z.string(),
  sessionid: z.string().optional(),
  agentid: z.string().optional(),
  agentversionid: z.string().optional(),
  sequence: z.number().int().optional(),
  parentid: z.string().optional(),
});
export type CloudEventRecord = z.infer<typeof CloudEventRecord>;

/** `source` attribute of an agent's events: `/projects/{projectId}/agents/{agentId}` (docs/architecture.md#event-envelope). */
export function agentSource(projectId: string, agentId: string): string {
  return `/projects/${projectId}/agents/${agentId}`;
}

/** Maps a validated agent event to its CloudEvents record (subject = runId, key = sessionId). */
export function toCloudEvent(projectId: string, event: AgentEvent): CloudEventRecord {
  const ce: CloudEventRecord = {
    specversion: '1.0',
    id: event.id,
    source: agentSource(projectId, event.agentId),
    type: event.type,
    time: event.time,
    datacontenttype: 'application/json',
    data: event.data,
    projectid: projectId,
    sessionid: event.sessionId,
    agentid: event.agentId,
    agentversionid: event.agentVersionId,
    sequence: event.sequence,
  };
  if (event.runId) ce.subject = event.runId;
  if (event.parentId) ce.parentid = event.parentId;
  return ce;
}

/**
 * Reads an agent event back from a CloudEvents record. Re-validates with {@link AgentEvent};
 * throws `z.ZodError` when the record does not hold a valid agent event.
 */
export function fromCloudEvent(ce: CloudEventRecord): { projectId: string; event: AgentEvent } {
  const event = AgentEvent.parse({
    id: ce.id,
    type: ce.type,
    time: ce.time,
    sessionId: ce.sessionid,
    runId: ce.subject,
    parentId: ce.parentid,
    agentId: ce.agentid,
    agentVersionId: ce.agentversionid,
    sequence: ce.sequence,
    data: ce.data,
  }) as AgentEvent;
  return { projectId: ce.projectid, event };
}
