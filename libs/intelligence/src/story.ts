import type { StoryMoment, StoryMomentKind } from '@agent-warden/contracts';
import { notableEvaluation } from './calls';
import type { AnalysisContext } from './context';
import type { ToolCallFact } from './facts';
import { sequenceGaps } from './figures';
import { isDestructiveTool, isSensitiveTool } from './flow/tools';
import type { AnalysisEvent } from './types';
import { clip, counted, plural, showValue } from './text';

/** Uneventful calls in a row from which the story shows one moment instead of one per call. */
export const COLLAPSE_FROM = 3;

interface Draft extends StoryMoment {
  sequence: number;
  /** Order among moments of the same sequence. */
  rank: number;
}

function moment(
  kind: StoryMomentKind,
  at: AnalysisEvent,
  title: string,
  eventIds: string[],
  text?: string,
  rank = 1,
): Draft {
  return {
    kind,
    time: at.time,
    title,
    ...(text ? { text } : {}),
    eventIds: [...new Set(eventIds)],
    sequence: at.sequence,
    rank,
  };
}

function argsText(c: ToolCallFact): string {
  const entries = Object.entries(c.arguments).slice(0, 3);
  return entries.map(([k, v]) => `${k}=${showValue(v, 60)}`).join(', ');
}

/** One moment per noteworthy call; runs of uneventful ones collapsed. */
function toolMoments(ctx: AnalysisContext): Draft[] {
  const out: Draft[] = [];
  const retries = new Map(ctx.retries.map((r) => [r.call, r]));
  const flowSinks = new Map<ToolCallFact, string[]>();
  const flowSources = new Map<ToolCallFact, string[]>();
  for (const f of ctx.flows) {
    flowSources.set(f.source, [...(flowSources.get(f.source) ?? []), f.identifier.value]);
    for (const s of f.sinks) {
      flowSinks.set(s.call, [
        ...(flowSinks.get(s.call) ?? []),
        `${s.path} ${f.identifier.value} came from ${f.source.toolName} output${f.instructionLike ? ' that carried injected instructions' : ''}`,
      ]);
    }
  }
  let quiet: ToolCallFact[] = [];
  const flush = () => {
    if (quiet.length >= COLLAPSE_FROM) {
      const counts: Record<string, number> = {};
      for (const c of quiet) counts[c.toolName] = (counts[c.toolName] ?? 0) + 1;
      out.push(
        moment(
          'tool_call',
          quiet[0]?.anchor as AnalysisEvent,
          `${plural(quiet.length, 'uneventful call')}: ${counted(counts, 4)}`,
          quiet.flatMap((c) => c.eventIds),
        ),
      );
    } else {
      for (const c of quiet)
        out.push(moment('tool_call', c.anchor, `${c.toolName}(${clip(argsText(c), 100)})`, c.eventIds));
    }
    quiet = [];
  };

  for (const c of ctx.facts.toolCalls) {
    const evaluation = notableEvaluation(c);
    const retry = retries.get(c);
    const sink = flowSinks.get(c);
    const source = flowSources.get(c);
    const eventful =
      c.status !== 'completed' ||
      retry ||
      sink ||
      source ||
      evaluation ||
      isSensitiveTool(c.toolName) ||
      isDestructiveTool(c.toolName);
    if (!eventful) {
      quiet.push(c);
      continue;
    }
    flush();
    if (evaluation) {
      const d = String(evaluation.data.policyDecision);
      const stopped =
        evaluation.data.outcome === 'blocked' || (evaluation.data.mode === 'enforce' && d === 'block');
      const names = ((evaluation.data.matchedGuardrails ?? []) as { name?: string }[]).map((g) =>
        String(g.name),
      );
      out.push(
        moment(
          stopped ? 'block' : 'guardrail',
          evaluation,
          stopped
            ? `${c.toolName} blocked`
            : `Guardrail: ${d.replace('_', ' ')} on ${c.toolName}${evaluation.data.mode === 'monitor' ? ' (monitor mode)' : ''}`,
          [evaluation.id],
          names.length > 0 ? `Matched ${names.map((n) => `"${n}"`).join(', ')}.` : undefined,
          0,
        ),
      );
    }
    if (c.status === 'not_run') continue;
    const args = clip(argsText(c), 100);
    if (retry) {
      out.push(
        moment(
          retry.call.status === 'failed' ? 'retry' : 'retry',
          c.anchor,
          `Retried ${c.toolName} (${retry.call.status === 'failed' ? 'failed again' : 'succeeded'})`,
          c.eventIds,
          `Same arguments as the failed call: ${args}`,
        ),
      );
    } else if (c.status === 'failed') {
      out.push(
        moment('failure', c.ended ?? c.anchor, `${c.toolName} failed`, c.eventIds, clip(c.error ?? '', 200)),
      );
    } else if (sink) {
      out.push(
        moment('tool_call', c.anchor, `${c.toolName}(${args})`, c.eventIds, clip(`${sink.join('; ')}.`, 300)),
      );
    } else if (source) {
      out.push(
        moment(
          'tool_call',
          c.anchor,
          `${c.toolName}(${args})`,
          c.eventIds,
          clip(`Its result carried ${[...new Set(source)].join(', ')}.`, 300),
        ),
      );
    } else if (c.status === 'unfinished') {
      out.push(moment('tool_call', c.anchor, `${c.toolName}(${args}) never finished`, c.eventIds));
    } else {
      out.push(moment('tool_call', c.anchor, `${c.toolName}(${args})`, c.eventIds));
    }
  }
  flush();
  return out;
}

function approvalMoments(ctx: AnalysisContext): Draft[] {
  const out: Draft[] = [];
  for (const a of ctx.facts.approvals) {
    const evs = a.eventIds.map((id) => ctx.facts.byId.get(id)).filter((e): e is AnalysisEvent => !!e);
    const at = evs.find((e) => e.type === 'agent.approval.requested') ?? evs[0];
    if (!at) continue;
    const wait = a.waitMs !== null ? ` after ${Math.round(a.waitMs / 100) / 10} s` : '';
    out.push(
      moment(
        'approval',
        at,
        `Approval for ${a.toolName ?? 'an action'}: ${a.status}${a.status === 'pending' ? '' : wait}`,
        evs.map((e) => e.id),
        undefined,
        2,
      ),
    );
  }
  return out;
}

function gapMoments(ctx: AnalysisContext): Draft[] {
  const { ranges } = sequenceGaps(ctx.facts);
  const last = ctx.facts.events[ctx.facts.events.length - 1];
  return ranges.flatMap(([a, b]) => {
    const after = ctx.facts.events.find((e) => e.sequence > b) ?? last;
    if (!after) return [];
    const n = b - a + 1;
    return [
      moment(
        'gap',
        after,
        `${plural(n, 'event')} lost (sequence ${a === b ? a : `${a}–${b}`})`,
        [after.id],
        undefined,
        -1,
      ),
    ];
  });
}

function frameMoments(ctx: AnalysisContext): Draft[] {
  const out: Draft[] = [];
  const { events, task } = ctx.facts;
  const start =
    events.find((e) => e.type === 'agent.session.started') ??
    events.find((e) => e.type === 'agent.run.started');
  const firstUser = events.find((e) => e.type === 'agent.message.logged' && e.data.role === 'user');
  // The request is told once: on the start moment unless the first user message says the same.
  const asked = task && String(firstUser?.data.content ?? '').trim() !== task.trim() ? task : null;
  if (start) {
    const text = asked ? `Asked: ${clip(asked, 300)}` : undefined;
    out.push(moment('start', start, 'Session started', [start.id], text, -2));
  }
  if (firstUser)
    out.push(
      moment(
        'input',
        firstUser,
        'User request',
        [firstUser.id],
        clip(String(firstUser.data.content ?? ''), 300),
      ),
    );
  for (const e of events) {
    if (e.type === 'agent.run.completed' && e.data.status !== 'succeeded') {
      const err = e.data.error as { message?: string } | undefined;
      out.push(
        moment(
          'failure',
          e,
          `Run ${String(e.data.status)}`,
          [e.id],
          err?.message ? clip(err.message, 200) : undefined,
        ),
      );
    }
  }
  const lastAnswer = [...events]
    .reverse()
    .find((e) => e.type === 'agent.message.logged' && e.data.role === 'assistant');
  const toolAfter =
    lastAnswer && events.some((e) => e.sequence > lastAnswer.sequence && e.type.startsWith('agent.tool.'));
  if (lastAnswer && !toolAfter)
    out.push(
      moment(
        'message',
        lastAnswer,
        'Final answer',
        [lastAnswer.id],
        clip(String(lastAnswer.data.content ?? ''), 300),
      ),
    );
  const ended = [...events].reverse().find((e) => e.type === 'agent.session.ended');
  const end = ended ?? [...events].reverse().find((e) => e.type === 'agent.run.completed');
  if (end) {
    const status = String(end.data.status ?? 'completed');
    const summary =
      typeof end.data.outputSummary === 'string' ? clip(end.data.outputSummary, 300) : undefined;
    out.push(moment('end', end, ended ? `Session ${status}` : `Run ${status}`, [end.id], summary, 3));
  }
  return out;
}

/**
 * The story: start, the user's request, the calls that matter (failures, retries, guardrail
 * decisions, sensitive and destructive calls, the calls of a data flow; runs of
 * {@link COLLAPSE_FROM} or more uneventful calls as one moment), approvals, lost events, failed
 * runs, the final answer and the end — in sequence order, each naming its event ids. Pure.
 */
export function buildStory(ctx: AnalysisContext): StoryMoment[] {
  const drafts = [...frameMoments(ctx), ...toolMoments(ctx), ...approvalMoments(ctx), ...gapMoments(ctx)];
  return drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.sequence - b.d.sequence || a.d.rank - b.d.rank || a.i - b.i)
    .map(({ d }) => {
      const { sequence: _s, rank: _r, ...m } = d;
      return m;
    });
}
