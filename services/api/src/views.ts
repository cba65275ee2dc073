import type { z } from 'zod';
import type { EventView, RunView, SessionView } from '@agent-warden/contracts';
import type { Event, Run, Session } from '@agent-warden/db';

/** Stored session → wire form; `missingSequences` = sequence numbers never received (lost events). */
export function sessionView(s: Session): z.infer<typeof SessionView> {
  return {
    id: s.id,
    agentId: s.agentId,
    agentVersionId: s.agentVersionId,
    status: s.status,
    inputSummary: s.inputSummary,
    startedAt: s.startedAt.toISOString(),
    endedAt: s.endedAt?.toISOString() ?? null,
    lastEventAt: s.lastEventAt.toISOString(),
    eventCount: s.eventCount,
    maxSequence: s.maxSequence,
    missingSequences: Math.max(0, s.maxSequence - s.eventCount),
  };
}

export function runView(r: Run): z.infer<typeof RunView> {
  return {
    id: r.id,
    sessionId: r.sessionId,
    name: r.name,
    status: r.status,
    inputSummary: r.inputSummary,
    outputSummary: r.outputSummary,
    startedAt: r.startedAt?.toISOString() ?? null,
    endedAt: r.endedAt?.toISOString() ?? null,
  };
}

export function eventView(e: Event): z.infer<typeof EventView> {
  return {
    id: e.id,
    type: e.type,
    time: e.time.toISOString(),
    sessionId: e.sessionId,
    runId: e.runId,
    parentId: e.parentId,
    agentId: e.agentId,
    agentVersionId: e.agentVersionId,
    sequence: e.sequence,
    data: e.data,
    receivedAt: e.receivedAt.toISOString(),
  };
}
