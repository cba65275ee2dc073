import type { ArgumentOrigin, ArgumentProvenance, Provenance } from '@agent-warden/contracts';
import type { WardenEvent } from '../api/types';
import type { ToolCall } from './timeline';

/**
 * The session replay's view of an evaluation's `provenance` (docs/provenance.md): which argument
 * values came from which tool result, each source linked to that tool result's event in the same
 * session.
 */

/** A tool result an argument came from, with the event the replay selects for it. */
export interface LinkedSource {
  toolName: string;
  toolCallId?: string;
  /** The tool result carried instructions aimed at the model. */
  instructions: boolean;
  /**
   * Id of the event to select: the call's `agent.tool.completed` or `agent.tool.failed` event,
   * else its `agent.tool.started`; undefined when none of them is in the loaded session (no
   * `toolCallId`, or a call that is not among the session's events).
   */
  eventId?: string;
}

/** One argument leaf of the evaluated call with its linked sources. */
export interface LinkedArgument {
  path: string;
  origin: ArgumentOrigin;
  tainted: boolean;
  instructed: boolean;
  sources: LinkedSource[];
}

/** What the replay shows of an evaluation's provenance. */
export interface LinkedProvenance {
  /** Tainted leaves first (they are why a call is stopped), then the rest, each in the client's order. */
  arguments: LinkedArgument[];
  /** Number of tainted leaves. */
  tainted: number;
  /** Tool results of the session so far that carried instructions aimed at the model. */
  untrustedInstructions: number;
  /** The latest of them, linked like an argument's source. */
  lastInstruction?: LinkedSource & { rules: string[] };
  /** The client described only its first 64 leaves. */
  truncated: boolean;
}

const ORIGINS: readonly string[] = ['user', 'tool', 'both', 'none'];

/**
 * The event of tool call `toolCallId` the replay links to: its result (`agent.tool.completed`,
 * else `agent.tool.failed`), else its `agent.tool.started`. Undefined when the id is missing or no
 * such event is loaded.
 */
export function sourceEventId(
  calls: ReadonlyMap<string, ToolCall>,
  toolCallId: string | undefined,
): string | undefined {
  if (!toolCallId) return undefined;
  const c = calls.get(toolCallId);
  return (c?.completed ?? c?.failed ?? c?.started)?.id;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

function linkSource(raw: unknown, calls: ReadonlyMap<string, ToolCall>): LinkedSource | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const s = raw as Record<string, unknown>;
  const toolName = str(s.toolName);
  if (!toolName) return undefined;
  const toolCallId = str(s.toolCallId);
  const eventId = sourceEventId(calls, toolCallId);
  return {
    toolName,
    ...(toolCallId ? { toolCallId } : {}),
    instructions: s.instructions === true,
    ...(eventId ? { eventId } : {}),
  };
}

function linkArgument(raw: unknown, calls: ReadonlyMap<string, ToolCall>): LinkedArgument | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const a = raw as Partial<Record<keyof ArgumentProvenance, unknown>>;
  const path = str(a.path);
  if (!path) return undefined;
  return {
    path,
    origin: (ORIGINS.includes(a.origin as string) ? a.origin : 'none') as ArgumentOrigin,
    tainted: a.tainted === true,
    instructed: a.instructed === true,
    sources: (Array.isArray(a.sources) ? a.sources : [])
      .map((s) => linkSource(s, calls))
      .filter((s): s is LinkedSource => !!s),
  };
}

/**
 * The `provenance` of an `agent.guardrail.evaluated` event's data, each source linked to its event
 * among `calls` (the session's tool calls, from `toolCalls(events)`). Undefined when the event
 * carries none (an older client, or not an evaluation). Stored events were validated against the
 * contract's `Provenance`; this still reads defensively (a missing part is left out, an unknown
 * origin reads `none`) so a newer client's field never breaks the replay.
 */
export function linkProvenance(
  event: WardenEvent,
  calls: ReadonlyMap<string, ToolCall>,
): LinkedProvenance | undefined {
  if (event.type !== 'agent.guardrail.evaluated') return undefined;
  const p = (event.data as { provenance?: unknown } | null)?.provenance;
  if (!p || typeof p !== 'object') return undefined;
  const prov = p as Partial<Record<keyof Provenance, unknown>>;
  const args = (Array.isArray(prov.arguments) ? prov.arguments : [])
    .map((a) => linkArgument(a, calls))
    .filter((a): a is LinkedArgument => !!a);
  const session = (prov.session ?? {}) as { untrustedInstructions?: unknown; lastInstruction?: unknown };
  const last = linkSource(session.lastInstruction, calls);
  const rules = (session.lastInstruction as { rules?: unknown } | undefined)?.rules;
  return {
    arguments: [...args.filter((a) => a.tainted), ...args.filter((a) => !a.tainted)],
    tainted: args.filter((a) => a.tainted).length,
    untrustedInstructions:
      typeof session.untrustedInstructions === 'number' ? session.untrustedInstructions : 0,
    ...(last
      ? {
          lastInstruction: {
            ...last,
            instructions: true,
            rules: Array.isArray(rules) ? rules.filter((r): r is string => typeof r === 'string') : [],
          },
        }
      : {}),
    truncated: prov.truncated === true,
  };
}

/** What an origin badge says, and its tone: tool output alone is the risky one. */
export const ORIGIN_TEXT: Record<ArgumentOrigin, { label: string; title: string }> = {
  user: { label: 'from user', title: "found in the user's request or messages" },
  tool: { label: 'from tool output', title: 'found only in tool output: the user never named it' },
  both: { label: 'user + tool', title: 'found both in what the user wrote and in tool output' },
  none: { label: 'model-made', title: 'found in no source: the model wrote or computed it' },
};

/**
 * The session part in words: `instructions aimed at the model seen in 2 tool results; latest:
 * get_webpage, rules override-earlier-instructions, address-the-model` (no "latest" part when the
 * client named none; "no instructions …" for 0).
 */
export function describeSessionProvenance(
  p: Pick<LinkedProvenance, 'untrustedInstructions' | 'lastInstruction'>,
): string {
  const n = p.untrustedInstructions;
  if (n === 0) return 'no instructions aimed at the model seen in tool results so far';
  const head = `instructions aimed at the model seen in ${n} tool result${n === 1 ? '' : 's'}`;
  const l = p.lastInstruction;
  if (!l) return head;
  return `${head}; latest: ${l.toolName}${l.rules.length ? `, rules ${l.rules.join(', ')}` : ''}`;
}
