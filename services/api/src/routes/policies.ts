import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import {
  AuditQuery,
  POLICY_INPUT_KEYS,
  POLICY_SET_FORMAT,
  PolicyExportQuery,
  PolicyImportEnvelope,
  PolicyListQuery,
  PolicyVersionsQuery,
  ProjectSettings,
  Uuid,
  type DescribedPolicyVersionView,
  type DescribedPolicyView,
  type PolicyInput,
  type PolicyOperatorList,
  type PolicyValidationView,
  type ValidationIssue,
} from '@agent-warden/contracts';
import type { PolicyChangeNotifier } from '../policy-changes';
import {
  PolicyNameConflictError,
  PolicyNotFoundError,
  PolicyVersionConflictError,
  applyDefaultDecision,
  auditView,
  createPolicy,
  deletePolicy,
  exportPolicies,
  findPolicy,
  findPolicyVersion,
  getProjectSettings,
  importPolicies,
  listAudit,
  listPolicies,
  listPolicyVersions,
  policyAsInput,
  policyVersionView,
  policyView,
  replacePolicy,
  setDefaultDecision,
  setPolicyEnabled,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, actorOf, notFound, parseOr400, principalOf, validationError } from '@agent-warden/http';
import { describeMatch, listOperators, validatePolicy } from '@agent-warden/policy';
import { decodeCursor, encodeCursor } from '../cursor';

const ALLOWED_KEYS = new Set<string>(POLICY_INPUT_KEYS);

/**
 * Checks a policy body with `validatePolicy` plus a check for unknown top-level keys. Paths are
 * prefixed with `prefix` (`policies.3` → `policies.3.match.all.1.value`). Never throws.
 */
export function checkPolicyBody(
  body: unknown,
  prefix = '',
): { ok: true; policy: PolicyInput } | { ok: false; errors: ValidationIssue[] } {
  const at = (p: string) => [prefix, p].filter(Boolean).join('.') || '(root)';
  const errors: ValidationIssue[] = [];
  if (body && typeof body === 'object' && !Array.isArray(body))
    for (const k of Object.keys(body))
      if (!ALLOWED_KEYS.has(k))
        errors.push({ path: at(k), message: `unknown key; a policy holds ${POLICY_INPUT_KEYS.join(', ')}` });
  const r = validatePolicy(body);
  if (!r.ok) errors.push(...r.errors.map((e) => ({ path: at(e.path), message: e.message })));
  return errors.length > 0 || !r.ok ? { ok: false, errors } : { ok: true, policy: r.policy };
}

/** {@link checkPolicyBody} or a 400 `validation_failed` naming every offending path. */
export function policyOr400(body: unknown, prefix = ''): PolicyInput {
  const r = checkPolicyBody(body, prefix);
  if (r.ok) return r.policy;
  throw validationError(
    `invalid policy: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    r.errors,
  );
}

/** A stored policy as the API answers it: storage's view plus `rule`, the text of its match tree. */
function described(p: Parameters<typeof policyView>[0]): DescribedPolicyView {
  const view = policyView(p);
  return { ...view, rule: describeMatch(view.match) };
}

/** A kept version as the API answers it, with `rule`. */
function describedVersion(v: Parameters<typeof policyVersionView>[0]): DescribedPolicyVersionView {
  const view = policyVersionView(v);
  return { ...view, rule: describeMatch(view.match) };
}

/**
 * `POST /v1/policies/validate`: what a create would say about `body`, plus the rule text as soon
 * as the match tree is valid (the editor shows it while the name is still empty). Never throws.
 */
export function validationOf(body: unknown): PolicyValidationView {
  const r = checkPolicyBody(body);
  const errors = r.ok ? [] : r.errors;
  const match = body && typeof body === 'object' ? (body as { match?: unknown }).match : undefined;
  const matchOk =
    match !== undefined && !errors.some((e) => e.path === 'match' || e.path.startsWith('match.'));
  return {
    valid: r.ok,
    rule: matchOk ? describeMatch(match as PolicyInput['match']) : null,
    errors,
  };
}

/** Maps the typed errors of `@agent-warden/db`'s policy writes to problems (404, 409). */
const policyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof PolicyNotFoundError) return next(notFound('policy'));
  if (err instanceof PolicyNameConflictError)
    return next(
      new AppError('conflict', err.message, {
        errors: err.conflicts.map((c) => ({
          path: c.index === undefined ? 'name' : `policies.${c.index}.name`,
          message: `policy ${c.policyId} is already named "${c.name}"`,
        })),
      }),
    );
  if (err instanceof PolicyVersionConflictError)
    return next(
      new AppError('conflict', err.message, { errors: [{ path: 'expectedVersion', message: err.message }] }),
    );
  next(err);
};

const listCursor = {
  encode: (name: string, id: string) => Buffer.from(JSON.stringify([name, id]), 'utf8').toString('base64url'),
  decode(cursor: string): { name: string; id: string } {
    try {
      const [name, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
      if (typeof name === 'string' && typeof id === 'string') return { name, id };
    } catch {
      /* falls through */
    }
    throw validationError('malformed cursor', [{ path: 'cursor', message: 'not a cursor from this API' }]);
  },
};

const VersionParam = z.coerce.number().int().min(1).max(2_147_483_647);

/** A policy draft for `POST /v1/policies/validate`: any JSON object, valid as a policy or not. */
const PolicyDraft = z.record(z.string(), z.unknown());

/**
 * Policy management (docs/architecture.md#guardrail-policies; docs/guardrails.md): CRUD with versions,
 * enable/disable, soft delete, import/export, validation with the rule text, the operator listing,
 * the project's default decision and the audit log.
 * Reads need `read`, writes and the audit log `admin`. Every query is filtered by the key's project.
 */
export function policiesRouter(deps: {
  read: RequestHandler;
  admin: RequestHandler;
  db: PrismaClient;
  /** Told after each committed write (stack: a hint to the gateways on Kafka; standalone: the one store). */
  policyChanges?: PolicyChangeNotifier;
}): Router {
  const { db, read, admin } = deps;
  const changed = (projectId: string, change: string, policyId: string | null = null) =>
    deps.policyChanges?.changed({ projectId, change, policyId });
  const r = Router();
  const ctx = (req: Request) => {
    const p = principalOf(req);
    return { projectId: p.projectId, actor: actorOf(p) };
  };
  const idOf = (req: Request) => parseOr400(Uuid, req.params.policyId, 'policyId');

  r.get('/v1/policies', read, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(PolicyListQuery, req.query, 'query');
    const rows = await listPolicies(db, projectId, {
      ...q,
      after: q.cursor ? listCursor.decode(q.cursor) : undefined,
    });
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    res.json({
      items: page.map(described),
      nextCursor: rows.length > q.limit && last ? listCursor.encode(last.name, last.id) : null,
    });
  });

  // Any JSON object is a draft to check (200 with its errors); anything else is not a draft (400).
  r.post('/v1/policies/validate', read, (req, res) => {
    res.json(validationOf(parseOr400(PolicyDraft, req.body)));
  });

  r.get('/v1/policy-operators', read, (_req, res) => {
    const answer: PolicyOperatorList = { items: listOperators() };
    res.json(answer);
  });

  r.post('/v1/policies', admin, async (req, res) => {
    const p = await createPolicy(db, ctx(req), policyOr400(req.body));
    changed(p.projectId, 'created', p.id);
    res.status(201).location(`/v1/policies/${p.id}`).json(described(p));
  });

  r.post('/v1/policies/import', admin, async (req, res) => {
    const c = ctx(req);
    const body = parseOr400(PolicyImportEnvelope, req.body);
    const errors: ValidationIssue[] = [];
    const inputs: PolicyInput[] = [];
    const seen = new Map<string, number>();
    body.policies.forEach((raw, i) => {
      const v = checkPolicyBody(raw, `policies.${i}`);
      if (!v.ok) return void errors.push(...v.errors);
      const first = seen.get(v.policy.name.toLowerCase());
      if (first !== undefined)
        errors.push({ path: `policies.${i}.name`, message: `same name as policies.${first}.name` });
      seen.set(v.policy.name.toLowerCase(), i);
      inputs.push(v.policy);
    });
    if (errors.length > 0)
      throw validationError(`invalid policy set: ${errors.length} problem(s); nothing was imported`, errors);
    const dd = body.defaultDecision;
    const out = await importPolicies(db, c, inputs, body.onConflict, async (tx) => {
      if (dd) await applyDefaultDecision(tx, c.projectId, c.actor, dd);
    });
    changed(c.projectId, 'imported');
    const count = (k: string) => out.policies.filter((o) => o.result === k).length;
    res.json({
      created: count('created'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      skipped: count('skipped'),
      defaultDecision: (await getProjectSettings(db, c.projectId)).defaultDecision,
      policies: out.policies.map((o) => ({
        id: o.policy.id,
        name: o.policy.name,
        version: o.policy.version,
        result: o.result,
      })),
    });
  });

  r.get('/v1/policies/export', read, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(PolicyExportQuery, req.query, 'query');
    const { defaultDecision, policies } = await exportPolicies(db, projectId, q.includeDisabled);
    res.json({
      format: POLICY_SET_FORMAT,
      exportedAt: new Date().toISOString(),
      defaultDecision,
      policies: policies.map(policyAsInput),
    });
  });

  r.get('/v1/policies/:policyId', read, async (req, res) => {
    const p = await findPolicy(db, principalOf(req).projectId, idOf(req));
    if (!p) throw notFound('policy');
    res.json(described(p));
  });

  r.put('/v1/policies/:policyId', admin, async (req, res) => {
    const id = idOf(req);
    const raw: unknown = req.body;
    const isObject = !!raw && typeof raw === 'object' && !Array.isArray(raw);
    const { expectedVersion, ...body } = isObject ? (raw as Record<string, unknown>) : {};
    const expected = parseOr400(VersionParam.optional(), expectedVersion, 'expectedVersion');
    const p = await replacePolicy(db, ctx(req), id, policyOr400(isObject ? body : raw), expected);
    changed(p.projectId, 'updated', p.id);
    res.json(described(p));
  });

  r.delete('/v1/policies/:policyId', admin, async (req, res) => {
    const c = ctx(req);
    const id = idOf(req);
    await deletePolicy(db, c, id);
    changed(c.projectId, 'deleted', id);
    res.status(204).end();
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    r.post(`/v1/policies/:policyId/${verb}`, admin, async (req, res) => {
      const { policy } = await setPolicyEnabled(db, ctx(req), idOf(req), enabled);
      changed(policy.projectId, enabled ? 'enabled' : 'disabled', policy.id);
      res.json(described(policy));
    });

  r.get('/v1/policies/:policyId/versions', read, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = idOf(req);
    const q = parseOr400(PolicyVersionsQuery, req.query, 'query');
    if (!(await findPolicy(db, projectId, id))) throw notFound('policy');
    const rows = await listPolicyVersions(db, projectId, id, { limit: q.limit, before: q.cursor });
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    res.json({
      items: page.map(describedVersion),
      nextCursor: rows.length > q.limit && last ? String(last.version) : null,
    });
  });

  r.get('/v1/policies/:policyId/versions/:version', read, async (req, res) => {
    const version = parseOr400(VersionParam, req.params.version, 'version');
    const v = await findPolicyVersion(db, principalOf(req).projectId, idOf(req), version);
    if (!v) throw notFound('policy version');
    res.json(describedVersion(v));
  });

  r.get('/v1/projects/current/settings', read, async (req, res) => {
    res.json(await getProjectSettings(db, principalOf(req).projectId));
  });

  r.put('/v1/projects/current/settings', admin, async (req, res) => {
    const body = parseOr400(ProjectSettings, req.body);
    const c = ctx(req);
    const { defaultDecision } = await setDefaultDecision(db, c.projectId, c.actor, body.defaultDecision);
    changed(c.projectId, 'default_decision');
    res.json({ defaultDecision });
  });

  r.get('/v1/audit', admin, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(AuditQuery, req.query, 'query');
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await listAudit(db, projectId, { ...q, after: after && { at: after.time, id: after.id } });
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    res.json({
      items: page.map(auditView),
      nextCursor: rows.length > q.limit && last ? encodeCursor(last.at, last.id) : null,
    });
  });

  r.use(policyErrors);
  return r;
}
