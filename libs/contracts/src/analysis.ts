import type { EventType } from './events';
import type { MatchedGuardrail } from './events';

/*
 * The runtime-intelligence analysers' input (libs/intelligence): defined here, at the bottom of the
 * layers, because storage (libs/db `loadSessionForAnalysis`) produces it and the analysers consume
 * it; neither may import the other (docs/decisions.md "Layers are checked by lint").
 */

/**
 * What the analysers read about one session: plain JSON, loaded by the intelligence worker from
 * PostgreSQL (libs/db `loadSessionForAnalysis`) or built by tests from trajectories. Times are ISO
 * 8601 strings; durations are ms.
 */
export interface AnalysisSession {
  id: string;
  projectId: string;
  agentId: string;
  /** The agent's `agent.key`, when known. */
  agentKey: string | null;
  /** `active` | `completed` | `failed` | `cancelled` (from `agent.session.ended`). */
  status: string;
  inputSummary: string | null;
  startedAt: string;
  endedAt: string | null;
  lastEventAt: string;
  eventCount: number;
  maxSequence: number;
  /**
   * Names of the tools the session's agent version declared (its capabilities of kind `tool`,
   * `PUT /v1/agents/{agentId}/versions/{agentVersionId}/capabilities`); `null` or absent when it
   * declared none, so whether the agent has tools is unknown.
   */
  agentTools?: string[] | null;
}

/** A run of the session (derived by the projector from `agent.run.*`). */
export interface AnalysisRun {
  id: string;
  name: string | null;
  /** `running` | `succeeded` | `failed` | `cancelled`. */
  status: string;
  inputSummary: string | null;
  outputSummary: string | null;
  error: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

/** A stored event of the session, in the envelope's form (docs/architecture.md#event-envelope). */
export interface AnalysisEvent {
  id: string;
  type: EventType;
  time: string;
  /** Per-session counter set by the client, from 1; gaps are lost events. */
  sequence: number;
  runId: string | null;
  parentId: string | null;
  /** The event's payload (contracts `EventData[type]`). */
  data: Record<string, unknown>;
}

/** An approval of the session as the service holds it (its status may differ from the client's last event). */
export interface AnalysisApproval {
  id: string;
  evaluationId: string;
  toolName: string | null;
  /** `pending` | `approved` | `denied` | `expired` | `cancelled`. */
  status: string;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

/** A guardrail evaluation the gateway recorded for the session (not an event: never cited as evidence). */
export interface AnalysisEvaluation {
  evaluationId: string;
  toolCallId: string | null;
  toolName: string | null;
  mode: 'monitor' | 'enforce';
  policyDecision: string;
  effectiveDecision: string;
  wouldBlock: boolean;
  wouldRequireApproval: boolean;
  matchedGuardrails: MatchedGuardrail[];
  evaluatedAt: string;
}

/** Everything the analysers get for one session. `events` are ordered by `sequence`. */
export interface SessionInput {
  session: AnalysisSession;
  runs: AnalysisRun[];
  events: AnalysisEvent[];
  approvals: AnalysisApproval[];
  evaluations: AnalysisEvaluation[];
}
