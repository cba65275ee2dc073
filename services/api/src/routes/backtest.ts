import { Router, type Request, type RequestHandler } from 'express';
import {
  BACKTEST_DEFAULT_WINDOW_MS,
  BACKTEST_MAX_SCAN,
  BACKTEST_PAGE_ROWS,
  BacktestRequest,
  DryRunRequest,
  type BacktestMatch,
  type BacktestResponse,
  type Decision,
} from '@agent-warden/contracts';
import {
  findPolicy,
  getProjectSettings,
  loadProjectPolicies,
  scanToolCalls,
  type PrismaClient,
  type StoredToolCall,
} from '@agent-warden/db';
import { notFound, parseOr400, principalOf, validationError } from '@agent-warden/http';
import {
  compilePolicy,
  createEngine,
  evaluateOne,
  type CompiledPolicy,
  type EvaluationInput,
  type StoredPolicy,
} from '@agent-warden/policy';
import { decodeCursor, encodeCursor } from '../cursor';
import { policyOr400 } from './policies';

/** Id given to a draft (not stored) policy while it is tried. */
const DRAFT_ID = 'draft';

/**
 * The policy under test: the draft in `body.policy` (validated like a create, paths `policy.…`)
 * or the live stored policy `body.policyId` of the key's project. Exactly one; 400 / 404 otherwise.
 */
async function policyUnderTest(
  db: PrismaClient,
  projectId: string,
  body: { policy?: unknown; policyId?: string },
): Promise<{ stored: StoredPolicy; isDraft: boolean }> {
  if ((body.policy === undefined) === (body.policyId === undefined))
    throw validationError('give exactly one of policy (a draft) or policyId (a stored policy)', [
      { path: 'policy', message: 'exactly one of policy or policyId is required' },
    ]);
  if (body.policy !== undefined) {
    const p = policyOr400(body.policy, 'policy');
    return { isDraft: true, stored: { ...p, id: DRAFT_ID, version: 1, enabled: true } };
  }
  const row = await findPolicy(db, projectId, body.policyId!);
  if (!row || row.deletedAt) throw notFound('policy');
  return { isDraft: false, stored: row as unknown as StoredPolicy };
}

function tried(c: CompiledPolicy, isDraft: boolean) {
  return {
    id: isDraft ? null : c.id,
    version: isDraft ? null : c.version,
    name: c.name,
    decision: c.decision,
    description: c.description,
  };
}

/** What the gateway evaluated for this call (the client sends `action.name` = the tool name). */
function inputOf(call: StoredToolCall): EvaluationInput {
  const name = call.toolName ?? undefined;
  return {
    tool: name === undefined ? undefined : { name },
    action: { type: call.actionType ?? undefined, name },
    resource: call.resource ?? undefined,
    riskLevel: call.riskLevel ?? undefined,
    arguments: call.arguments ?? undefined,
    provenance: call.provenance ?? undefined,
    agent: { key: call.agentKey ?? undefined },
  };
}

/**
 * Dry run and backtest of a policy (docs/architecture.md#guardrail-policies: a policy can be tried before
 * it is enabled). `admin` scope; nothing is stored.
 */
export function backtestRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();

  r.post('/v1/policies/dry-run', deps.auth, async (req: Request, res) => {
    const { projectId } = principalOf(req);
    const body = parseOr400(DryRunRequest.omit({ policy: true }), req.body);
    const { stored, isDraft } = await policyUnderTest(db, projectId, { ...body, policy: req.body?.policy });
    const compiled = compilePolicy(stored);
    const hit = evaluateOne(compiled, body.input);
    res.json({
      matched: hit !== undefined,
      decision: hit?.decision ?? null,
      reason: hit?.reason ?? null,
      policy: tried(compiled, isDraft),
    });
  });

  r.post('/v1/policies/backtest', deps.auth, async (req: Request, res) => {
    const t0 = performance.now();
    const { projectId } = principalOf(req);
    const body = parseOr400(BacktestRequest.omit({ policy: true }), req.body);
    const { stored, isDraft } = await policyUnderTest(db, projectId, { ...body, policy: req.body?.policy });
    const to = body.to ? new Date(body.to) : new Date();
    const from = body.from ? new Date(body.from) : new Date(to.getTime() - BACKTEST_DEFAULT_WINDOW_MS);
    if (from >= to) throw validationError('empty window', [{ path: 'from', message: 'must be before to' }]);
    const after = body.cursor ? decodeCursor(body.cursor) : undefined;

    const compiled = compilePolicy(stored);
    // The project's decisions with the policy in place: its enabled policies, this one replacing its
    // stored version. A stored policy that no longer compiles is left out (gateways keep it out too).
    const baseline = (await loadProjectPolicies(db, projectId)).filter((p) => {
      if (p.id === stored.id) return false;
      try {
        compilePolicy(p as unknown as StoredPolicy);
        return true;
      } catch {
        return false;
      }
    }) as unknown as StoredPolicy[];
    const { defaultDecision } = await getProjectSettings(db, projectId);
    const engine = createEngine([...baseline, { ...stored, enabled: true }], { defaultDecision });

    const byDecision: Record<Decision, number> = { allow: 0, warn: 0, require_approval: 0, block: 0 };
    const items: BacktestMatch[] = [];
    let scanned = 0;
    let withProvenance = 0;
    let matched = 0;
    let more = false;
    let truncated = false;
    scan: for await (const page of scanToolCalls(db, projectId, { from, to, pageSize: BACKTEST_PAGE_ROWS })) {
      for (const call of page) {
        if (scanned >= BACKTEST_MAX_SCAN) {
          truncated = true;
          break scan;
        }
        scanned += 1;
        if (call.provenance !== null) withProvenance += 1;
        const input = inputOf(call);
        byDecision[engine.evaluate(input, 'enforce').policyDecision] += 1;
        const hit = evaluateOne(compiled, input);
        if (!hit) continue;
        matched += 1;
        const t = call.time.getTime();
        const afterCursor =
          !after || t > after.time.getTime() || (t === after.time.getTime() && call.id > after.id);
        if (!afterCursor) continue;
        if (items.length === body.limit) {
          more = true;
          continue;
        }
        items.push({
          eventId: call.id,
          sessionId: call.sessionId,
          runId: call.runId,
          agentId: call.agentId,
          agentKey: call.agentKey,
          time: call.time.toISOString(),
          toolName: call.toolName,
          arguments: call.arguments,
          provenance: (call.provenance as BacktestMatch['provenance']) ?? null,
          reason: hit.reason,
        });
      }
    }
    const last = items[items.length - 1];
    const answer: BacktestResponse = {
      policy: tried(compiled, isDraft),
      window: { from: from.toISOString(), to: to.toISOString() },
      scanned,
      withProvenance,
      matched,
      byDecision,
      items,
      nextCursor: more && last ? encodeCursor(new Date(last.time), last.eventId) : null,
      truncated,
      tookMs: Math.round(performance.now() - t0),
    };
    res.json(answer);
  });
  return r;
}
