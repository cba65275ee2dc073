import type { RecommendationDraft } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import { isDestructiveTool } from '../flow/tools';
import { plural } from '../text';

/** Stable kind of this recommendation. */
export const DESTRUCTIVE_KIND = 'require_approval_for_destructive_tool';

const RANK: Record<string, number> = { require_approval: 2, block: 3 };

/**
 * A destructive tool (delete, remove, cancel, drop, revoke, password change) that ran without a
 * guardrail asking for approval or blocking it: a draft that makes a person approve it. Pure.
 */
export function destructiveRecommendations(ctx: AnalysisContext): RecommendationDraft[] {
  const byTool = new Map<string, string[]>();
  for (const c of ctx.facts.toolCalls) {
    if (c.status !== 'completed' || !c.started || !isDestructiveTool(c.toolName)) continue;
    const guarded = c.evaluations.some((e) => (RANK[String(e.data.policyDecision)] ?? 0) >= 2);
    if (guarded) continue;
    byTool.set(c.toolName, [...(byTool.get(c.toolName) ?? []), c.started.id]);
  }
  return [...byTool].map(([tool, ids]) => ({
    kind: DESTRUCTIVE_KIND,
    title: `Require approval for ${tool}`,
    rationale: `${tool} ran ${plural(ids.length, 'time')} with no guardrail in the way, and what it does cannot be undone without help. This draft makes a person approve each call (denied after 5 minutes without an answer).`,
    severity: 'medium',
    policy: {
      name: `Require approval for ${tool}`,
      description: `Drafted from a session where ${tool} ran unguarded.`,
      enabled: false,
      decision: 'require_approval',
      match: { field: 'tool.name', op: 'eq', value: tool },
      approval: { timeoutSeconds: 300, onTimeout: 'deny' },
    },
    evidenceEventIds: ids.slice(0, 50),
  }));
}
