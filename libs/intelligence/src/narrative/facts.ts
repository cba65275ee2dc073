import type { IntelligenceDraft, IntelligenceFigures } from '@agent-warden/contracts';
import type { SessionInput } from '../types';

/** One story moment as the model sees it; `index` is its position in `draft.story`. */
export interface MomentFact {
  index: number;
  kind: string;
  time: string;
  title: string;
  text: string | null;
  eventIds: string[];
}

/**
 * The structured facts the model writes the narrative from: the deterministic draft's figures,
 * outcome, moments (with their event ids), action items and recommendation titles — never the raw
 * events. Bounded by {@link buildNarrativeFacts}'s `maxChars`.
 */
export interface NarrativeFacts {
  session: {
    agent: string | null;
    status: string;
    startedAt: string;
    endedAt: string | null;
    input: string | null;
  };
  outcome: { status: string; text: string };
  figures: Omit<IntelligenceFigures, 'toolCallsByTool' | 'sequenceGaps' | 'durationMs'> & {
    /** Left out when `timing` is `replay`: the replay's duration is not the agent's. */
    durationMs?: number;
    toolCallsByTool: Record<string, { calls: number; failures: number }>;
    /** Tools left out of `toolCallsByTool` (the least called), when there were too many. */
    otherTools: number;
    sequenceGaps: [number, number][];
  };
  deterministicSummary: string;
  moments: MomentFact[];
  /** Moments of the story left out to stay within the size cap (their texts stay deterministic). */
  momentsOmitted: number;
  actionItems: {
    kind: string;
    severity: string;
    title: string;
    detail: string;
    evidenceEventIds: string[];
  }[];
  recommendations: { kind: string; severity: string; title: string }[];
}

/** Size knobs of one attempt; {@link buildNarrativeFacts} tightens them until the JSON fits. */
interface Limits {
  moments: number;
  items: number;
  idsPerEntry: number;
  textChars: number;
  tools: number;
}

const START: Limits = { moments: 60, items: 20, idsPerEntry: 8, textChars: 400, tools: 25 };
const FLOOR: Limits = { moments: 4, items: 3, idsPerEntry: 2, textChars: 80, tools: 5 };

/** Cuts a string to `max` characters, marking the cut with `…`. */
export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(0, max - 1))}…`;
}

/** Picks `keep` indices of `0..count-1`: the first half and the last half (start and end of a story matter most). */
function pickIndices(count: number, keep: number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (count <= keep) return all;
  const head = Math.ceil(keep / 2);
  return [...all.slice(0, head), ...all.slice(count - (keep - head))];
}

function build(draft: IntelligenceDraft, input: SessionInput, l: Limits): NarrativeFacts {
  const f = draft.summary.figures;
  const tools = Object.entries(f.toolCallsByTool).sort((a, b) => b[1].calls - a[1].calls);
  const momentIdx = pickIndices(draft.story.length, l.moments);
  return {
    session: {
      agent: input.session.agentKey,
      status: input.session.status,
      startedAt: input.session.startedAt,
      endedAt: input.session.endedAt,
      input: draft.summary.input === null ? null : clip(draft.summary.input, l.textChars * 2),
    },
    outcome: { status: draft.summary.outcome.status, text: clip(draft.summary.outcome.text, l.textChars) },
    figures: {
      ...f,
      toolCallsByTool: Object.fromEntries(tools.slice(0, l.tools).map(([name, c]) => [clip(name, 80), c])),
      otherTools: Math.max(0, tools.length - l.tools),
      sequenceGaps: f.sequenceGaps.slice(0, 10),
      ...(f.timing === 'replay' ? { durationMs: undefined } : {}),
    },
    deterministicSummary: clip(draft.summary.text, l.textChars * 2),
    moments: momentIdx.map((index) => {
      const m = draft.story[index]!;
      return {
        index,
        kind: m.kind,
        time: m.time,
        title: clip(m.title, 200),
        text: m.text === undefined ? null : clip(m.text, l.textChars),
        eventIds: m.eventIds.slice(0, l.idsPerEntry),
      };
    }),
    momentsOmitted: draft.story.length - momentIdx.length,
    actionItems: draft.actionItems.slice(0, l.items).map((a) => ({
      kind: a.kind,
      severity: a.severity,
      title: clip(a.title, 200),
      detail: clip(a.detail, l.textChars),
      evidenceEventIds: a.evidenceEventIds.slice(0, l.idsPerEntry),
    })),
    recommendations: draft.recommendations
      .slice(0, l.items)
      .map((r) => ({ kind: r.kind, severity: r.severity, title: clip(r.title, 200) })),
  };
}

/**
 * Builds the facts of a draft whose JSON is at most `maxChars` characters when possible: starts
 * generous (60 moments, 20 items, 8 ids per entry, texts of 400 chars) and halves every knob down
 * to a floor (4 moments, 3 items, 2 ids, 80 chars) until it fits. At the floor it returns what it
 * has even if larger (only pathological inputs — e.g. huge titles — get there).
 * @returns the facts and their JSON (the exact string sent to the model)
 */
export function buildNarrativeFacts(
  draft: IntelligenceDraft,
  input: SessionInput,
  maxChars: number,
): { facts: NarrativeFacts; json: string } {
  let limits = { ...START };
  for (;;) {
    const facts = build(draft, input, limits);
    const json = JSON.stringify(facts);
    const atFloor = (Object.keys(limits) as (keyof Limits)[]).every((k) => limits[k] <= FLOOR[k]);
    if (json.length <= maxChars || atFloor) return { facts, json };
    limits = {
      moments: Math.max(FLOOR.moments, Math.floor(limits.moments / 2)),
      items: Math.max(FLOOR.items, Math.floor(limits.items / 2)),
      idsPerEntry: Math.max(FLOOR.idsPerEntry, Math.floor(limits.idsPerEntry / 2)),
      textChars: Math.max(FLOOR.textChars, Math.floor(limits.textChars / 2)),
      tools: Math.max(FLOOR.tools, Math.floor(limits.tools / 2)),
    };
  }
}
