import type { Condition, MatchNode, RecommendationDraft } from '@agent-warden/contracts';
import { flowEvidence, type AnalysisContext } from '../context';
import type { DataFlow, FlowSink } from '../flow/data-flow';
import { clip, listOf } from '../text';

/** Stable kind of this recommendation. */
export const DATA_FLOW_KIND = 'tool_output_to_sensitive_argument';

/** Most values one draft policy names (one condition each). */
const MAX_VALUES = 20;

/** The argument condition that matches `sink`'s use of `flow`'s value (exact value where possible). */
function condition(sink: FlowSink): Condition {
  const field = `arguments.${sink.path}`;
  const leaf = sink.leafText;
  if (sink.inArray) return { field, op: 'contains', value: leaf };
  if (leaf === sink.value) return { field, op: 'eq', value: leaf };
  return { field, op: 'contains', value: sink.value };
}

function draft(flows: DataFlow[], injected: boolean): RecommendationDraft {
  // One branch per (tool, argument): tool.name = T and (the argument holds one of the values).
  const branches = new Map<string, { tool: string; conds: Map<string, Condition> }>();
  for (const f of flows) {
    for (const s of f.sinks) {
      const key = `${s.call.toolName}\u0000${s.path}`;
      const b = branches.get(key) ?? { tool: s.call.toolName, conds: new Map<string, Condition>() };
      const c = condition(s);
      if (b.conds.size < MAX_VALUES) b.conds.set(JSON.stringify(c), c);
      branches.set(key, b);
    }
  }
  const nodes: MatchNode[] = [...branches.values()].map((b) => {
    const conds = [...b.conds.values()];
    const arg: MatchNode = conds.length === 1 ? (conds[0] as Condition) : { any: conds };
    return { all: [{ field: 'tool.name', op: 'eq', value: b.tool }, arg] };
  });
  const match: MatchNode = nodes.length === 1 ? (nodes[0] as MatchNode) : { any: nodes };
  const values = [...new Set(flows.map((f) => f.identifier.value))];
  const tools = [...new Set(flows.flatMap((f) => f.sinks.map((s) => s.call.toolName)))];
  const sources = [...new Set(flows.map((f) => f.source.toolName))];
  const decision = injected ? 'block' : 'require_approval';
  const verb = injected ? 'Block' : 'Require approval for';
  const name = clip(`${verb} ${listOf(tools, 3)} to ${listOf(values, 2)}`, 200);
  return {
    kind: DATA_FLOW_KIND,
    title: name,
    rationale: injected
      ? `${listOf(values, 3)} first appeared in ${listOf(sources, 3)} output next to instructions addressed to the model, not in the user's request, and then became an argument of ${listOf(tools, 3)}: the mark of a prompt injection. This draft blocks those calls with that value; backtest it before enabling.`
      : `${listOf(values, 3)} first appeared in ${listOf(sources, 3)} output, not in the user's request, and then became an argument of ${listOf(tools, 3)}. If such values should come from the user, this draft makes a person approve those calls; backtest it before enabling.`,
    severity: injected ? 'high' : 'low',
    policy: {
      name,
      description: clip(
        `Drafted from a session: ${listOf(tools, 3)} used ${listOf(values, 3)}, a value taken from ${listOf(sources, 3)} output.`,
        2000,
      ),
      enabled: false,
      decision,
      match,
      ...(decision === 'require_approval'
        ? { approval: { timeoutSeconds: 300, onTimeout: 'deny' as const } }
        : {}),
    },
    evidenceEventIds: [...new Set(flows.flatMap(flowEvidence))],
  };
}

/**
 * Data flowing from a tool's output into a later sensitive call's arguments: one draft for the
 * flows whose source carried instruction-like text (`block`), one for the others
 * (`require_approval`). Pure.
 */
export function dataFlowRecommendations(ctx: AnalysisContext): RecommendationDraft[] {
  const injected = ctx.flows.filter((f) => f.instructionLike);
  const plain = ctx.flows.filter((f) => !f.instructionLike);
  return [
    ...(injected.length > 0 ? [draft(injected, true)] : []),
    ...(plain.length > 0 ? [draft(plain, false)] : []),
  ];
}
