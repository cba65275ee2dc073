import type { z } from 'zod';
import type { EvaluationView, EventView, LlmCallView, RunView, SessionView } from '@agent-warden/contracts';
import type { Event, LlmCall, Run, Session, StoredEvaluation } from '@agent-warden/db';

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

/** Stored guardrail evaluation → wire form (`provenance` null when the request carried none). */
export function evaluationView(e: StoredEvaluation): EvaluationView {
  return {
    id: e.id,
    agentId: e.agentId,
    agentVersionId: e.agentVersionId,
    sessionId: e.sessionId,
    runId: e.runId,
    toolCallId: e.toolCallId,
    toolName: e.toolName,
    mode: e.mode as EvaluationView['mode'],
    policyDecision: e.policyDecision as EvaluationView['policyDecision'],
    effectiveDecision: e.effectiveDecision as EvaluationView['effectiveDecision'],
    matchedGuardrails: e.matchedGuardrails as unknown as EvaluationView['matchedGuardrails'],
    wouldBlock: e.wouldBlock,
    wouldRequireApproval: e.wouldRequireApproval,
    dryRun: e.dryRun,
    approvalId: e.approvalId,
    input: e.input as EvaluationView['input'],
    provenance: (e.provenance ?? null) as EvaluationView['provenance'],
    evaluatedAt: e.evaluatedAt.toISOString(),
  };
}

/** Stored LLM call → wire form (`error` null when the call succeeded). */
export function llmCallView(c: LlmCall): LlmCallView {
  return {
    id: c.id,
    sessionId: c.sessionId,
    runId: c.runId,
    agentId: c.agentId,
    agentVersionId: c.agentVersionId,
    eventId: c.eventId,
    time: c.time.toISOString(),
    operation: c.operation,
    provider: c.provider,
    model: c.model,
    responseModel: c.responseModel,
    inputTokens: c.inputTokens,
    outputTokens: c.outputTokens,
    cachedInputTokens: c.cachedInputTokens,
    durationMs: c.durationMs,
    costUsd: c.costUsd,
    costSource: c.costSource as LlmCallView['costSource'],
    finishReasons: c.finishReasons,
    error: c.errorMessage === null ? null : { type: c.errorType, message: c.errorMessage },
  };
}
