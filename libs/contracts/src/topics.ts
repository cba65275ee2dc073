import { agentSource, type CloudEventRecord } from './cloudevents';
import type { Decision, Mode } from './common';
import type { GuardRequest } from './guard';
import type { MatchedGuardrail } from './events';
import type { Provenance } from './provenance';

/**
 * Every topic and its record payload in one place (docs/conventions.md#layout: name → payload map), so a publisher
 * or a handler with the wrong payload fails to compile.
 */
export const TOPICS = {
  /** Raw agent events as CloudEvents, key = sessionId. Other systems may consume it. */
  agentEvents: 'agent-events',
  /** Records of `agent-events` that can never be stored, with the reason. */
  agentEventsDeadLetter: 'agent-events.dlq',
  /** Guardrail evaluations recorded by gateways, key = evaluationId. */
  guardrailEvaluations: 'guardrail-evaluations',
  /**
   * Wake-up hints after a committed policy change, key = projectId (one partition). Gateways
   * reload at once on a hint; their poll of PostgreSQL stays the guarantee (docs/decisions.md).
   */
  policyChanges: 'policy-changes',
} as const;
export type TopicKey = keyof typeof TOPICS;
export type TopicName = (typeof TOPICS)[TopicKey];

/** The CloudEvents `type` of a recorded guardrail evaluation. */
export const EVALUATION_RECORDED_TYPE = 'warden.guardrail.evaluation.recorded';

/** `data` of a {@link EVALUATION_RECORDED_TYPE} record. */
export interface EvaluationRecord {
  evaluationId: string;
  projectId: string;
  agentId: string;
  agentVersionId: string | null;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  mode: Mode;
  policyDecision: Decision;
  effectiveDecision: Decision;
  matchedGuardrails: MatchedGuardrail[];
  wouldBlock: boolean;
  wouldRequireApproval: boolean;
  dryRun: boolean;
  approvalId: string | null;
  input: Pick<GuardRequest, 'action' | 'tool' | 'resource' | 'riskLevel' | 'arguments'>;
  /**
   * The provenance the request carried, as validated (docs/provenance.md; bounded by the schema:
   * 64 arguments × 3 sources); null when it carried none. Absent in records of gateways older
   * than the data-flow guardrails (read as null).
   */
  provenance?: Provenance | null;
  evaluatedAt: string;
}

/**
 * The `guardrail-evaluations` record of an evaluation (key = evaluationId): a CloudEvents 1.0
 * record of type {@link EVALUATION_RECORDED_TYPE}, `source` = the agent's, `time` = `evaluatedAt`,
 * `subject` = the run (when there is one), extension attributes `projectid`, `agentid` and
 * `sessionid` (when there is one), `data` = the record itself.
 */
export function evaluationMessage(record: EvaluationRecord): TopicMessage<'guardrail-evaluations'> {
  return {
    key: record.evaluationId,
    value: {
      specversion: '1.0',
      id: record.evaluationId,
      source: agentSource(record.projectId, record.agentId),
      type: EVALUATION_RECORDED_TYPE,
      time: record.evaluatedAt,
      datacontenttype: 'application/json',
      projectid: record.projectId,
      agentid: record.agentId,
      ...(record.sessionId ? { sessionid: record.sessionId } : {}),
      ...(record.runId ? { subject: record.runId } : {}),
      data: record,
    },
  };
}

/** A dead-lettered record: the original bytes (as UTF-8 text), where it came from, and why. */
export interface DeadLetterRecord {
  reason: string;
  code: 'unparseable' | 'invalid_event' | 'unknown_project' | 'storage_rejected';
  sourceTopic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  failedAt: string;
}

/** What changed in a project's guardrails (`policy-changes`); the policies themselves stay in PostgreSQL. */
export interface PolicyChangeNotice {
  projectId: string;
  /** The API operation: `created`, `updated`, `enabled`, `disabled`, `deleted`, `imported`, `default_decision`. */
  change: string;
  /** The policy concerned, when one is. */
  policyId: string | null;
  /** When the change was committed (ISO 8601). */
  changedAt: string;
}

/** Payload type of each topic. */
export interface TopicPayloads {
  'agent-events': CloudEventRecord;
  'agent-events.dlq': DeadLetterRecord;
  'guardrail-evaluations': CloudEventRecord & { data: EvaluationRecord };
  'policy-changes': PolicyChangeNotice;
}

/** One record to publish: key decides the partition (docs/architecture.md#kafka-topics: key = sessionId for agent events). */
export interface TopicMessage<T extends TopicName> {
  key: string;
  value: TopicPayloads[T];
}
