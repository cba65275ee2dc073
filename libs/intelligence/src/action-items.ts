import type { ActionItem, Severity } from '@agent-warden/contracts';
import { agreedPlanDeviations } from './analysers/agreed-plan';
import { compensatedActions } from './analysers/compensation';
import { contradictedToolFacts } from './analysers/contradictions';
import { duplicateSideEffects } from './analysers/duplicates';
import { ignoredErrors } from './analysers/ignored-errors';
import { noFinalAnswer } from './analysers/no-answer';
import { retryLoops } from './analysers/retry-loops';
import { unconfirmedSideEffects } from './analysers/unconfirmed';
import { unrequestedActions } from './analysers/unrequested';
import { unsupportedValues } from './analysers/unsupported-values';
import { unverifiedTargets } from './analysers/unverified-target';
import { unresolvedRequests } from './analysers/unresolved';
import { flowEvidence, type AnalysisContext } from './context';
import type { ToolCallFact } from './facts';
import { sequenceGaps } from './figures';
import { clip, listOf, plural } from './text';

/** Failures of one tool that make it "failing repeatedly". */
export const REPEATED_FAILURES = 3;
/** Most evidence ids an action item lists (the detail gives the full count). */
export const MAX_EVIDENCE = 50;

function ids(list: readonly string[]): string[] {
  return [...new Set(list)].slice(0, MAX_EVIDENCE);
}

function byTool(calls: readonly ToolCallFact[]): Map<string, ToolCallFact[]> {
  const m = new Map<string, ToolCallFact[]>();
  for (const c of calls) m.set(c.toolName, [...(m.get(c.toolName) ?? []), c]);
  return m;
}

/** A tool with {@link REPEATED_FAILURES} or more failures, or a failed call retried and failing again. */
function failingTools(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  const failedRetries = new Set(
    ctx.retries.filter((r) => r.call.status === 'failed').map((r) => r.call.toolName),
  );
  for (const [tool, calls] of byTool(ctx.facts.toolCalls.filter((c) => c.status !== 'not_run'))) {
    const failed = calls.filter((c) => c.status === 'failed');
    if (failed.length < REPEATED_FAILURES && !(failed.length >= 2 && failedRetries.has(tool))) continue;
    const all = failed.length === calls.length;
    const sample = clip(failed[failed.length - 1]?.error ?? '', 120);
    out.push({
      kind: 'tool_failing_repeatedly',
      severity: all && failed.length >= REPEATED_FAILURES ? 'high' : 'medium',
      title: `${tool} failed ${failed.length} of ${plural(calls.length, 'call')}`,
      detail: `${tool} failed ${plural(failed.length, 'time')}${failedRetries.has(tool) ? ', including retries with the same arguments' : ''}. Last error: ${sample}`,
      evidenceEventIds: ids(failed.flatMap((c) => (c.ended ? [c.ended.id] : c.eventIds))),
    });
  }
  return out;
}

function approvals(ctx: AnalysisContext): ActionItem[] {
  return ctx.facts.approvals
    .filter((a) => a.status === 'expired')
    .map((a) => ({
      kind: 'approval_timed_out' as const,
      severity: 'high' as const,
      title: `Approval for ${a.toolName ?? 'a guarded action'} timed out`,
      detail: `Nobody decided approval ${a.approvalId} in time${a.waitMs !== null ? ` (waited ${Math.round(a.waitMs / 1000)} s)` : ''}; the action took the policy's timeout outcome.`,
      evidenceEventIds: ids(a.eventIds),
    }));
}

function failedRunsAndSession(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  const completed = new Map<string, string>();
  for (const e of ctx.facts.events)
    if (e.type === 'agent.run.completed' && e.runId) completed.set(e.runId, e.id);
  const failedRuns = ctx.facts.input.runs.filter((r) => r.status === 'failed');
  const runIds =
    failedRuns.length > 0 || ctx.facts.input.runs.length > 0
      ? failedRuns.map((r) => ({ id: r.id, name: r.name, error: r.error }))
      : ctx.facts.events
          .filter((e) => e.type === 'agent.run.completed' && e.data.status === 'failed' && e.runId)
          .map((e) => ({ id: e.runId as string, name: null, error: null }));
  for (const r of runIds) {
    const ev = completed.get(r.id);
    out.push({
      kind: 'run_failed',
      severity: 'high',
      title: `Run ${r.name ? `"${clip(r.name, 60)}" ` : ''}failed`,
      detail: r.error ? `The run ended failed: ${clip(r.error, 200)}` : 'The run ended with status failed.',
      evidenceEventIds: ev ? [ev] : [],
    });
  }
  if (ctx.facts.input.session.status === 'failed') {
    const ended = [...ctx.facts.events].reverse().find((e) => e.type === 'agent.session.ended');
    const summary =
      ended && typeof ended.data.outputSummary === 'string'
        ? `: ${clip(ended.data.outputSummary, 200)}`
        : '.';
    out.push({
      kind: 'session_failed',
      severity: 'high',
      title: 'Session ended failed',
      detail: `The agent reported the session as failed${summary}`,
      evidenceEventIds: ended ? [ended.id] : [],
    });
  }
  return out;
}

/** Monitor-mode calls that enforce mode would have blocked or held for approval, by tool. */
function wouldHaveBeenStopped(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  for (const [flag, severity, verb] of [
    ['wouldBlock', 'high', 'blocked'],
    ['wouldRequireApproval', 'medium', 'held for approval'],
  ] as const) {
    const hits = ctx.facts.evaluations.filter((e) => e.data.mode === 'monitor' && e.data[flag] === true);
    const tools = new Map<string, typeof hits>();
    for (const e of hits) {
      const t = typeof e.data.toolName === 'string' ? e.data.toolName : 'an action';
      tools.set(t, [...(tools.get(t) ?? []), e]);
    }
    for (const [tool, evs] of tools) {
      const guardrails = [
        ...new Set(
          evs
            .flatMap(
              (e) =>
                (Array.isArray(e.data.matchedGuardrails) ? e.data.matchedGuardrails : []) as {
                  name?: string;
                }[],
            )
            .map((g) => String(g.name)),
        ),
      ];
      const callIds = evs.flatMap((e) => {
        const c =
          typeof e.data.toolCallId === 'string' ? ctx.facts.toolCallById.get(e.data.toolCallId) : undefined;
        return c ? c.eventIds : [e.id];
      });
      out.push({
        kind: 'would_have_been_blocked',
        severity: severity as Severity,
        title: `${plural(evs.length, `${tool} call`)} would have been ${verb} in enforce mode`,
        detail: `Monitor mode let ${evs.length === 1 ? 'it' : 'them'} run. Matched: ${
          listOf(
            guardrails.map((g) => `"${g}"`),
            3,
          ) || 'no named guardrail'
        }.`,
        evidenceEventIds: ids(callIds),
      });
    }
  }
  return out;
}

/** Calls stopped by a guardrail in enforce mode, by tool. */
function blocked(ctx: AnalysisContext): ActionItem[] {
  const hits = ctx.facts.evaluations.filter(
    (e) =>
      e.data.outcome === 'blocked' || (e.data.mode === 'enforce' && e.data.effectiveDecision === 'block'),
  );
  const tools = new Map<string, typeof hits>();
  for (const e of hits) {
    const t = typeof e.data.toolName === 'string' ? e.data.toolName : 'an action';
    tools.set(t, [...(tools.get(t) ?? []), e]);
  }
  return [...tools].map(([tool, evs]) => ({
    kind: 'blocked_action' as const,
    severity: 'medium' as const,
    title: `${plural(evs.length, `${tool} call`)} blocked by a guardrail`,
    detail: 'The guardrail stopped the call before it ran; check whether the agent tried to get around it.',
    evidenceEventIds: ids(evs.map((e) => e.id)),
  }));
}

function lost(ctx: AnalysisContext): ActionItem[] {
  const { lost: n, ranges } = sequenceGaps(ctx.facts);
  if (n === 0) return [];
  const after = ranges.flatMap(([, end]) => {
    const e = ctx.facts.events.find((x) => x.sequence > end) ?? ctx.facts.events[ctx.facts.events.length - 1];
    return e ? [e.id] : [];
  });
  const share = n / (n + ctx.facts.events.length);
  return [
    {
      kind: 'events_lost',
      severity: share > 0.1 ? 'high' : 'medium',
      title: `${plural(n, 'event')} lost`,
      detail: `Sequence numbers missing: ${listOf(
        ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)),
        5,
      )}. The timeline has holes there.`,
      evidenceEventIds: ids(after),
    },
  ];
}

const KIND_TEXT = { iban: 'IBAN', email: 'email address', url: 'URL' } as const;

/** Identifiers from tool output that became a sensitive call's recipient or target. */
function dataFlows(ctx: AnalysisContext): ActionItem[] {
  return ctx.flows.map((f) => {
    const sinks = [...new Set(f.sinks.map((s) => `${s.call.toolName}.${s.path}`))];
    return {
      kind: 'suspicious_data_flow' as const,
      severity: f.instructionLike ? ('critical' as const) : ('low' as const),
      title: `${f.identifier.value} from ${f.source.toolName} output used by ${listOf([...new Set(f.sinks.map((s) => s.call.toolName))], 3)}`,
      detail: f.instructionLike
        ? `The ${KIND_TEXT[f.identifier.kind]} first appeared in a ${f.source.toolName} result that also carries instructions addressed to the model (a prompt injection), not in the user's request; it then went into ${listOf(sinks, 3)}.`
        : `The ${KIND_TEXT[f.identifier.kind]} first appeared in a ${f.source.toolName} result, not in the user's request, and then went into ${listOf(sinks, 3)}. Often legitimate (a bill's IBAN, a contact's email); check that the user meant it.`,
      evidenceEventIds: ids(flowEvidence(f)),
    };
  });
}

/**
 * Kinds of the items that name a specific cause of a failure: the failure analysers' (`src/analysers/*`,
 * docs/intelligence.md "Failure analysers") and the model evaluator's (`evaluator_failure_cause`,
 * docs/intelligence.md "The model evaluator").
 */
export const FAILURE_CAUSE_KINDS: readonly ActionItem['kind'][] = [
  'duplicate_side_effect',
  'compensated_action',
  'retry_loop',
  'ignored_error',
  'unconfirmed_side_effect',
  'unrequested_action',
  'no_final_answer',
  'contradicted_tool_fact',
  'unsupported_value',
  'unverified_target',
  'differs_from_agreed_plan',
  'unresolved_request',
  'evaluator_failure_cause',
];

const ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/**
 * Every action item of the session, most severe first (stable within a severity), with `extra`
 * (the model evaluator's items) placed after the analysers' items of the same severity. Pure.
 */
export function findActionItems(ctx: AnalysisContext, extra: readonly ActionItem[] = []): ActionItem[] {
  const items = [
    ...dataFlows(ctx),
    ...duplicateSideEffects(ctx),
    ...compensatedActions(ctx),
    ...retryLoops(ctx),
    ...ignoredErrors(ctx),
    ...unconfirmedSideEffects(ctx),
    ...unrequestedActions(ctx),
    ...noFinalAnswer(ctx),
    ...contradictedToolFacts(ctx),
    ...unsupportedValues(ctx),
    ...unverifiedTargets(ctx),
    ...agreedPlanDeviations(ctx),
    ...unresolvedRequests(ctx),
    ...failedRunsAndSession(ctx),
    ...approvals(ctx),
    ...wouldHaveBeenStopped(ctx),
    ...blocked(ctx),
    ...failingTools(ctx),
    ...lost(ctx),
    ...extra,
  ];
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => ORDER[a.item.severity] - ORDER[b.item.severity] || a.i - b.i)
    .map((x) => x.item);
}
