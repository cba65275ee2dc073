import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { createApiKey, createProject, scanToolCalls } from '@agent-warden/db';
import { generateApiKey, hashApiKey } from '@agent-warden/http';
import { replayFiles } from '../scripts/replay/replay';
import type { Trajectory } from '../scripts/replay/trajectories';
import { call, waitFor } from './support/http';
import { TRAJECTORIES_DIR } from './support/env';
import { startTestStack, type TestStack } from './support/stack';

const EXAMPLES = path.resolve(__dirname, '../examples/policies');
const PAYMENT_TOOLS = ['send_money', 'schedule_transaction', 'update_scheduled_transaction'];
const example = (name: string) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8'));

/** JSON with sorted keys, so stored and logged arguments compare equal. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}

function readAgentDojo(): Trajectory[] {
  return fs
    .readFileSync(path.join(TRAJECTORIES_DIR, 'agentdojo.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Trajectory);
}

/**
 * Known payees, derived from the data independently of the example file: recipients of payment
 * calls in benign runs of AgentDojo *user* tasks, plus IBANs those tasks' requests name.
 */
function derivePayees(all: Trajectory[]): string[] {
  const payees = new Set<string>();
  for (const t of all) {
    if (
      t.labels.is_injection_attack !== false ||
      t.trajectory_id.split('/')[3]?.startsWith('user_task') !== true
    )
      continue;
    for (const m of t.task.match(/\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b/g) ?? []) payees.add(m);
    for (const s of t.steps) {
      const r = s.arguments?.recipient;
      if (s.kind === 'tool_call' && PAYMENT_TOOLS.includes(s.tool ?? '') && typeof r === 'string')
        payees.add(r);
    }
  }
  return [...payees].sort();
}

/**
 * A payee allowlist rule over `payees`: the test's own fixture for dry runs and backtests (the
 * shipped packs name no value from the data, docs/guardrails.md "Prompt-injection pack").
 */
function payeeRule(payees: string[]) {
  return {
    name: 'Test: payments to unknown recipients',
    decision: 'block',
    match: {
      all: [
        { field: 'tool.name', op: 'in', value: PAYMENT_TOOLS },
        { field: 'arguments.recipient', op: 'exists' },
        { not: { field: 'arguments.recipient', op: 'in', value: payees } },
      ],
    },
  };
}

describe('policy management API', () => {
  let stack: TestStack;
  let readKey: string;
  let agentId: string;
  const api = (method: string, p: string, body?: unknown, apiKey = stack.apiKey) =>
    call(stack.apiUrl, method, p, { apiKey, body });
  const evaluate = (tool: string, args: Record<string, unknown> = {}) =>
    call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: { agentId, tool: { name: tool }, arguments: args, mode: 'enforce', dryRun: true },
    });
  const bashPolicy = (name: string, pattern = 'rm\\s+-rf\\s+/') => ({
    name,
    decision: 'block',
    match: {
      all: [
        { field: 'tool.name', op: 'eq', value: 'bash' },
        { field: 'arguments.command', op: 'regex', value: pattern },
      ],
    },
  });

  beforeAll(async () => {
    stack = await startTestStack();
    const k = generateApiKey();
    await createApiKey(stack.prisma, stack.projectId, {
      name: 'read only',
      prefix: k.prefix,
      hash: hashApiKey(k.secret),
      scopes: ['read'],
    });
    readKey = k.secret;
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'policy-test' }, version: { version: '1' } },
    });
    agentId = id.body.agentId;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('create, update and enable/disable each make a version; old versions stay readable; every change is audited', async () => {
    const created = await api('POST', '/v1/policies', bashPolicy('No root wipes'));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/policies/${created.body.id}`);
    expect(created.body).toMatchObject({ name: 'No root wipes', version: 1, enabled: true, deletedAt: null });
    const id: string = created.body.id;

    const updated = await api('PUT', `/v1/policies/${id}`, {
      ...bashPolicy('No root wipes', 'rm\\s+-(rf|fr)\\s+/'),
      description: 'both flag orders',
      expectedVersion: 1,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, description: 'both flag orders' });
    const stale = await api('PUT', `/v1/policies/${id}`, {
      ...bashPolicy('No root wipes'),
      expectedVersion: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.errors).toEqual([expect.objectContaining({ path: 'expectedVersion' })]);

    expect((await api('POST', `/v1/policies/${id}/disable`)).body).toMatchObject({
      version: 3,
      enabled: false,
    });
    // Already disabled: nothing changes, no new version.
    expect((await api('POST', `/v1/policies/${id}/disable`)).body).toMatchObject({ version: 3 });
    expect((await api('POST', `/v1/policies/${id}/enable`)).body).toMatchObject({
      version: 4,
      enabled: true,
    });

    const versions = await api('GET', `/v1/policies/${id}/versions`);
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    const page = await api('GET', `/v1/policies/${id}/versions?limit=2`);
    expect(page.body.items.map((v: { version: number }) => v.version)).toEqual([4, 3]);
    const rest = await api('GET', `/v1/policies/${id}/versions?limit=2&cursor=${page.body.nextCursor}`);
    expect(rest.body.items.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(rest.body.nextCursor).toBeNull();
    const v1 = await api('GET', `/v1/policies/${id}/versions/1`);
    expect(v1.body).toMatchObject({ policyId: id, version: 1, enabled: true, description: null });
    expect(v1.body.match.all[1].value).toBe('rm\\s+-rf\\s+/');
    expect(v1.body.createdBy).toMatch(/^api-key:/);
    expect((await api('GET', `/v1/policies/${id}/versions/9`)).status).toBe(404);

    // The gateway evaluates the current version and names it.
    const d = await waitFor(async () => {
      const r = await evaluate('bash', { command: 'rm -fr /' });
      return r.body.matchedGuardrails?.[0]?.version === 4 ? r.body : undefined;
    }, 10_000);
    expect(d).toMatchObject({ policyDecision: 'block', matchedGuardrails: [{ policyId: id, version: 4 }] });

    const audit = await api('GET', `/v1/audit?entityId=${id}`);
    expect(audit.body.items.map((a: { action: string }) => a.action)).toEqual([
      'policy.enabled',
      'policy.disabled',
      'policy.updated',
      'policy.created',
    ]);
    const [enabled, , upd, crt] = audit.body.items;
    expect(enabled).toMatchObject({ entityType: 'policy', actor: expect.stringMatching(/^api-key:/) });
    expect(enabled.before).toMatchObject({ enabled: false, version: 3 });
    expect(enabled.after).toMatchObject({ enabled: true, version: 4 });
    expect(upd.before.description).toBeNull();
    expect(upd.after.description).toBe('both flag orders');
    expect(crt.before).toBeNull();
    expect(crt.actorKeyId).toEqual(expect.any(String));
  });

  test('invalid policies are 400 problems naming each path: bad regex, unknown field, unknown key, bad op value', async () => {
    const r = await api('POST', '/v1/policies', {
      name: 'broken',
      decision: 'block',
      colour: 'red',
      match: {
        all: [
          { field: 'tool.name', op: 'eq', value: 'bash' },
          { field: 'arguments.command', op: 'regex', value: 'rm (-rf' },
          {
            any: [
              { field: 'tool.name', op: 'eq', value: 'x' },
              { field: 'tool.id', op: 'eq', value: 'x' },
            ],
          },
          { field: 'riskLevel', op: 'gte', value: 'huge' },
        ],
      },
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('validation_failed');
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['colour', 'match.all.1.value', 'match.all.2.any.1.field', 'match.all.3.value']),
    );
    expect(r.body.errors.find((e: { path: string }) => e.path === 'match.all.1.value').message).toMatch(
      /Invalid regular expression/,
    );
    const nested = await api('POST', '/v1/policies', bashPolicy('redos', '(a+)+$'));
    expect(nested.body.errors[0].path).toBe('match.all.1.value');
    const missing = await api('POST', '/v1/policies', {
      decision: 'maybe',
      match: { field: 'tool.name', op: 'eq' },
    });
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['name', 'decision']),
    );
    expect((await api('GET', '/v1/policies?nameContains=broken')).body.items).toEqual([]);
  });

  test('names are unique per project (409, case-insensitive) until deleted; delete is soft and versions stay', async () => {
    const a = await api('POST', '/v1/policies', bashPolicy('Unique name'));
    const dup = await api('POST', '/v1/policies', bashPolicy('UNIQUE NAME'));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'conflict', errors: [{ path: 'name' }] });
    const other = await api('POST', '/v1/policies', bashPolicy('Other name'));
    expect((await api('PUT', `/v1/policies/${other.body.id}`, bashPolicy('unique name'))).status).toBe(409);

    expect((await api('DELETE', `/v1/policies/${a.body.id}`)).status).toBe(204);
    expect((await api('DELETE', `/v1/policies/${a.body.id}`)).status).toBe(404);
    expect((await api('PUT', `/v1/policies/${a.body.id}`, bashPolicy('Unique name'))).status).toBe(404);
    expect((await api('POST', `/v1/policies/${a.body.id}/disable`)).status).toBe(404);
    const gone = await api('GET', `/v1/policies/${a.body.id}`);
    expect(gone.body.deletedAt).toEqual(expect.any(String));
    expect((await api('GET', `/v1/policies/${a.body.id}/versions/1`)).status).toBe(200);
    const row = await stack.prisma.policy.findUnique({ where: { id: a.body.id } });
    expect(row?.deletedAt).not.toBeNull();
    // The name is free again.
    expect((await api('POST', '/v1/policies', bashPolicy('Unique name'))).status).toBe(201);
    const names = (await api('GET', '/v1/policies?nameContains=unique')).body.items.map(
      (p: { id: string }) => p.id,
    );
    expect(names).not.toContain(a.body.id);
    const withDeleted = await api('GET', '/v1/policies?nameContains=unique&includeDeleted=true');
    expect(withDeleted.body.items.map((p: { id: string }) => p.id)).toContain(a.body.id);
    const audit = await api('GET', `/v1/audit?entityId=${a.body.id}&action=policy.deleted`);
    expect(audit.body.items[0].after.deletedAt).toEqual(expect.any(String));
  });

  test('list filters by enabled, decision and name, pages by name', async () => {
    for (const [name, decision, enabled] of [
      ['filter warn on', 'warn', true],
      ['filter warn off', 'warn', false],
      ['filter block on', 'block', true],
    ] as const)
      await api('POST', '/v1/policies', {
        name,
        decision,
        enabled,
        match: { field: 'tool.name', op: 'eq', value: name },
      });
    const names = async (q: string) =>
      (await api('GET', `/v1/policies?nameContains=FILTER&${q}`)).body.items.map(
        (p: { name: string }) => p.name,
      );
    expect(await names('')).toEqual(['filter block on', 'filter warn off', 'filter warn on']);
    expect(await names('decision=warn')).toEqual(['filter warn off', 'filter warn on']);
    expect(await names('enabled=false')).toEqual(['filter warn off']);
    expect(await names('enabled=true&decision=warn')).toEqual(['filter warn on']);
    const p1 = await api('GET', '/v1/policies?nameContains=filter&limit=2');
    const p2 = await api('GET', `/v1/policies?nameContains=filter&limit=2&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.items, ...p2.body.items].map((p: { name: string }) => p.name)).toEqual(
      await names(''),
    );
    expect(p2.body.nextCursor).toBeNull();
    expect((await api('GET', '/v1/policies?enabled=yes')).body.errors[0].path).toBe('enabled');
  });

  test('scopes and projects: a read key reads but cannot write; another project sees nothing of this one', async () => {
    expect((await api('GET', '/v1/policies', undefined, readKey)).status).toBe(200);
    expect((await api('GET', '/v1/projects/current/settings', undefined, readKey)).status).toBe(200);
    const denied = await api('POST', '/v1/policies', bashPolicy('read key'), readKey);
    expect(denied.status).toBe(403);
    expect((await api('GET', '/v1/audit', undefined, readKey)).status).toBe(403);
    expect((await api('POST', '/v1/policies/dry-run', {}, readKey)).status).toBe(403);

    const project = await createProject(stack.prisma, 'other project');
    const k = generateApiKey();
    await createApiKey(stack.prisma, project.id, {
      name: 'other',
      prefix: k.prefix,
      hash: hashApiKey(k.secret),
      scopes: ['admin'],
    });
    const mine = (await api('GET', '/v1/policies?limit=1')).body.items[0];
    expect((await api('GET', '/v1/policies', undefined, k.secret)).body.items).toEqual([]);
    expect((await api('GET', `/v1/policies/${mine.id}`, undefined, k.secret)).status).toBe(404);
    expect((await api('GET', `/v1/policies/${mine.id}/versions`, undefined, k.secret)).status).toBe(404);
    expect((await api('POST', `/v1/policies/${mine.id}/disable`, undefined, k.secret)).status).toBe(404);
    expect((await api('GET', '/v1/audit', undefined, k.secret)).body.items).toEqual([]);
    const dry = await api(
      'POST',
      '/v1/policies/dry-run',
      { policyId: mine.id, input: { tool: { name: 'bash' } } },
      k.secret,
    );
    expect(dry.status).toBe(404);
    // The same name is free in another project.
    expect((await api('POST', '/v1/policies', { ...mine, id: undefined }, k.secret)).status).toBe(400);
    const same = { name: mine.name, decision: mine.decision, match: mine.match };
    expect((await api('POST', '/v1/policies', same, k.secret)).status).toBe(201);
  });

  test('the default decision: read, set (audited), and applied by the gateway when nothing matches', async () => {
    expect((await api('GET', '/v1/projects/current/settings')).body).toEqual({ defaultDecision: 'allow' });
    expect((await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'nope' })).status).toBe(400);
    expect(
      (await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'warn', x: 1 })).status,
    ).toBe(400);
    const set = await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'warn' });
    expect(set.body).toEqual({ defaultDecision: 'warn' });
    const d = await waitFor(async () => {
      const r = await evaluate('some_unguarded_tool');
      return r.body.policyDecision === 'warn' ? r.body : undefined;
    }, 10_000);
    expect(d.matchedGuardrails).toEqual([]);
    const audit = await api('GET', '/v1/audit?action=project.settings.updated');
    expect(audit.body.items[0]).toMatchObject({
      entityType: 'project',
      entityId: stack.projectId,
      before: { defaultDecision: 'allow' },
      after: { defaultDecision: 'warn' },
    });
    await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'allow' });
    await waitFor(
      async () => (await evaluate('some_unguarded_tool')).body.policyDecision === 'allow',
      10_000,
    );
  });

  test('import is all or nothing; export → import round trip; the example sets import', async () => {
    const before = (await api('GET', '/v1/policies?limit=500')).body.items.length;
    const bad = await api('POST', '/v1/policies/import', {
      policies: [
        bashPolicy('import ok'),
        bashPolicy('import bad', 'rm (-rf'),
        { ...bashPolicy('import ok'), decision: 'warn' },
        { ...bashPolicy('import field'), match: { field: 'tool.id', op: 'eq', value: 'x' } },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'policies.1.match.all.1.value',
      'policies.2.name',
      'policies.3.match.field',
    ]);
    expect((await api('GET', '/v1/policies?limit=500')).body.items.length).toBe(before);

    for (const file of [
      'prompt-injection.json',
      'prompt-injection-strict.json',
      'tau-bench.json',
      'shell.json',
    ]) {
      const r = await api('POST', '/v1/policies/import', example(file));
      expect(r.status).toBe(200);
      expect(r.body.created).toBe(example(file).policies.length);
    }
    // Importing again: names exist → 409 listing them, nothing written; `skip` and `update` settle it.
    const again = await api('POST', '/v1/policies/import', example('shell.json'));
    expect(again.status).toBe(409);
    expect(again.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'policies.0.name',
      'policies.1.name',
      'policies.2.name',
    ]);
    const skip = await api('POST', '/v1/policies/import', { ...example('shell.json'), onConflict: 'skip' });
    expect(skip.body).toMatchObject({ created: 0, skipped: 3 });
    const changed = example('shell.json');
    changed.policies[0].decision = 'require_approval';
    const upd = await api('POST', '/v1/policies/import', { ...changed, onConflict: 'update' });
    expect(upd.body).toMatchObject({ updated: 1, unchanged: 2 });
    expect(upd.body.policies[0]).toMatchObject({ result: 'updated', version: 2 });

    // Export, then import into a fresh project: the same policies and default decision.
    await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'warn' });
    const exported = await api('GET', '/v1/policies/export');
    expect(exported.body).toMatchObject({ format: 'agent-warden.policies/v1', defaultDecision: 'warn' });
    await api('PUT', '/v1/projects/current/settings', { defaultDecision: 'allow' });
    const project = await createProject(stack.prisma, 'round trip');
    const k = generateApiKey();
    await createApiKey(stack.prisma, project.id, {
      name: 'rt',
      prefix: k.prefix,
      hash: hashApiKey(k.secret),
      scopes: ['admin'],
    });
    const imported = await api('POST', '/v1/policies/import', exported.body, k.secret);
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ created: exported.body.policies.length, defaultDecision: 'warn' });
    const back = await api('GET', '/v1/policies/export', undefined, k.secret);
    expect(back.body.policies).toEqual(exported.body.policies);
    const summary = await api('GET', '/v1/audit?action=policies.imported', undefined, k.secret);
    expect(summary.body.items[0].after).toMatchObject({ created: exported.body.policies.length });
  });

  test('rules as text: every policy view carries its rule; validate words a draft and stores nothing; the operators are listed', async () => {
    const rule = 'tool.name = "bash" and arguments.command matches /rm\\s+-rf\\s+\\//';
    const created = await api('POST', '/v1/policies', bashPolicy('Rule text'));
    expect(created.status).toBe(201);
    expect(created.body.rule).toBe(rule);
    const id: string = created.body.id;
    expect((await api('GET', `/v1/policies/${id}`, undefined, readKey)).body.rule).toBe(rule);
    const listed = await api('GET', '/v1/policies?nameContains=Rule%20text');
    expect(listed.body.items.map((p: { rule: string }) => p.rule)).toEqual([rule]);
    expect((await api('GET', `/v1/policies/${id}/versions/1`)).body.rule).toBe(rule);
    const disabled = await api('POST', `/v1/policies/${id}/disable`);
    expect(disabled.body).toMatchObject({ version: 2, rule });

    const countBefore = await stack.prisma.policy.count();
    const ok = await api('POST', '/v1/policies/validate', bashPolicy('Draft'), readKey);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, rule, errors: [] });
    // The match tree is fine, the name is missing: not valid, but the rule is already worded.
    const { name: _name, ...nameless } = bashPolicy('x');
    const noName = await api('POST', '/v1/policies/validate', {
      ...nameless,
      match: { not: { field: 'arguments.to', op: 'in', value: ['a', 'b', 'c', 'd'] } },
    });
    expect(noName.body).toEqual({
      valid: false,
      rule: 'not (arguments.to in ["a", "b", "c", … +1 more])',
      errors: [expect.objectContaining({ path: 'name' })],
    });
    const badRegex = await api('POST', '/v1/policies/validate', bashPolicy('Draft', 'rm (-rf'));
    expect(badRegex.body).toMatchObject({
      valid: false,
      rule: null,
      errors: [{ path: 'match.all.1.value', message: expect.stringContaining('Unterminated group') }],
    });
    const unknownKey = await api('POST', '/v1/policies/validate', { ...bashPolicy('Draft'), colour: 'red' });
    expect(unknownKey.body).toMatchObject({ valid: false, rule, errors: [{ path: 'colour' }] });
    // Not an object at all is not a draft: 400, as the OpenAPI document says.
    const notObject = await api('POST', '/v1/policies/validate', [null, null]);
    expect(notObject.status).toBe(400);
    expect(await stack.prisma.policy.count()).toBe(countBefore);

    const ops = await api('GET', '/v1/policy-operators', undefined, readKey);
    expect(ops.status).toBe(200);
    const names = ops.body.items.map((o: { name: string }) => o.name);
    // Every operator of the registry, in name order (libs/policy/README.md "Operator registry").
    expect(names).toEqual(
      expect.arrayContaining(['eq', 'in', 'glob', 'regex', 'gte', 'lte', 'exists', 'contains', 'startsWith']),
    );
    expect(names).toEqual([...names].sort());
    const byName = new Map(ops.body.items.map((o: { name: string }) => [o.name, o]));
    expect(byName.get('in')).toMatchObject({
      operand: 'list',
      valueRequired: true,
      example: { field: 'tool.name', op: 'in', text: 'tool.name in ["send_money", "schedule_transaction"]' },
    });
    expect(byName.get('exists')).toMatchObject({ operand: 'flag', valueRequired: false });
    // Every listed example is a condition the API accepts, worded as the listing says.
    for (const o of ops.body.items as {
      example: { field: string; op: string; value: unknown; text: string };
    }[]) {
      const { text, ...condition } = o.example;
      const v = await api('POST', '/v1/policies/validate', { name: 'x', decision: 'warn', match: condition });
      expect(v.body).toEqual({ valid: true, rule: text, errors: [] });
    }
    expect((await api('GET', '/v1/policy-operators', undefined, 'aw_nope')).status).toBe(401);
  });

  test('dry run: a draft or a stored policy against one call; nothing is stored', async () => {
    const countBefore = await stack.prisma.policy.count();
    const draft = payeeRule(derivePayees(readAgentDojo()));
    const hit = await api('POST', '/v1/policies/dry-run', {
      policy: draft,
      input: {
        tool: { name: 'send_money' },
        arguments: { recipient: 'US133000000121212121212', amount: 10 },
      },
    });
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({
      matched: true,
      decision: 'block',
      policy: { id: null, name: draft.name },
    });
    expect(hit.body.reason).toMatch(
      /^tool\.name in .* and arguments\.recipient exists and not \(arguments\.recipient in/,
    );
    expect(hit.body.reason).not.toContain('US133000000121212121212');
    const miss = await api('POST', '/v1/policies/dry-run', {
      policy: draft,
      input: { tool: { name: 'send_money' }, arguments: { recipient: 'SE3550000000054910000003' } },
    });
    expect(miss.body).toMatchObject({ matched: false, decision: null, reason: null });
    expect(await stack.prisma.policy.count()).toBe(countBefore);

    const stored = (await api('GET', '/v1/policies?nameContains=force%20push')).body.items[0];
    const byId = await api('POST', '/v1/policies/dry-run', {
      policyId: stored.id,
      input: { tool: { name: 'bash' }, arguments: { command: 'git push -f origin main' } },
    });
    expect(byId.body).toMatchObject({ matched: true, policy: { id: stored.id, version: stored.version } });

    const bad = await api('POST', '/v1/policies/dry-run', { policy: bashPolicy('x', '(a+)+'), input: {} });
    expect(bad.body.errors[0].path).toBe('policy.match.all.1.value');
    const both = await api('POST', '/v1/policies/dry-run', { policy: draft, policyId: stored.id, input: {} });
    expect(both.status).toBe(400);
    const badInput = await api('POST', '/v1/policies/dry-run', {
      policy: draft,
      input: { riskLevel: 'extreme' },
    });
    expect(badInput.body.errors[0].path).toBe('input.riskLevel');
  });

  describe('backtest', () => {
    const all = readAgentDojo();
    const payees = derivePayees(all);
    // 40 banking trajectories: every one with a payment call, then others, in file order.
    const banking = all.filter((t) => t.domain === 'banking');
    const pays = (t: Trajectory) =>
      t.steps.some((s) => s.kind === 'tool_call' && PAYMENT_TOOLS.includes(s.tool ?? ''));
    const slice = [...banking.filter(pays), ...banking.filter((t) => !pays(t))].slice(0, 40);
    let from: string;
    let to: string;

    beforeAll(async () => {
      from = new Date(Date.now() - 60_000).toISOString();
      const file = path.join(os.tmpdir(), `agentdojo-slice-${newId()}.jsonl`);
      fs.writeFileSync(file, slice.map((t) => JSON.stringify(t)).join('\n') + '\n');
      // The client logs every "would block" of the imported policies; keep the test output readable.
      const quiet = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const summary = await replayFiles({
          files: [file],
          baseUrl: stack.gatewayUrl,
          statsUrl: stack.apiUrl,
          apiKey: stack.apiKey,
          mode: 'monitor',
        });
        expect(summary).toMatchObject({ trajectories: 40, missing: 0, duplicates: 0 });
      } finally {
        quiet.mockRestore();
        fs.rmSync(file, { force: true });
      }
      to = new Date(Date.now() + 60_000).toISOString();
      // The rule stored too, for the backtests by policyId.
      expect((await api('POST', '/v1/policies', payeeRule(payees))).status).toBe(201);
    }, 180_000);

    test('matches exactly the payment calls to recipients outside the known payees', async () => {
      const draft = payeeRule(payees);
      const r = await api('POST', '/v1/policies/backtest', { policy: draft, from, to, limit: 1000 });
      expect(r.status).toBe(200);

      const calls = slice.flatMap((t) =>
        t.steps.filter((s) => s.kind === 'tool_call').map((s) => ({ t, s })),
      );
      const expected = calls
        .filter(({ s }) => {
          const rcp = s.arguments?.recipient;
          return PAYMENT_TOOLS.includes(s.tool ?? '') && rcp != null && !payees.includes(String(rcp));
        })
        .map(({ t, s }) => `${t.trajectory_id}|${s.tool}|${canonical(s.arguments)}`)
        .sort();
      expect(expected.length).toBeGreaterThan(5);
      expect(r.body.scanned).toBe(calls.length);
      expect(r.body.matched).toBe(expected.length);
      const total = Object.values(r.body.byDecision as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(total).toBe(calls.length);

      // Map sessions back to trajectories through their session.started events.
      const starts = await stack.prisma.event.findMany({
        where: { projectId: stack.projectId, type: 'agent.session.started' },
      });
      const trajectoryOf = new Map(
        starts.map((e) => [
          e.sessionId,
          (e.data as { attributes: { trajectoryId: string } }).attributes.trajectoryId,
        ]),
      );
      const got = (
        r.body.items as Array<{ sessionId: string; toolName: string; arguments: unknown; reason: string }>
      )
        .map((i) => `${trajectoryOf.get(i.sessionId)}|${i.toolName}|${canonical(i.arguments)}`)
        .sort();
      expect(got).toEqual(expected);
      expect(
        r.body.items.every((i: { reason: string }) => i.reason.includes('not (arguments.recipient in')),
      ).toBe(true);
      expect(r.body.nextCursor).toBeNull();
    });

    test('pages matches with the cursor; a stored policy (policyId) gives the same answer; byDecision includes the project policies', async () => {
      const draft = payeeRule(payees);
      const full = await api('POST', '/v1/policies/backtest', { policy: draft, from, to, limit: 1000 });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await api('POST', '/v1/policies/backtest', {
          policy: draft,
          from,
          to,
          limit: 3,
          cursor,
        });
        expect(page.body.items.length).toBeLessThanOrEqual(3);
        expect(page.body.matched).toBe(full.body.matched);
        seen.push(...page.body.items.map((i: { eventId: string }) => i.eventId));
        cursor = page.body.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(full.body.items.map((i: { eventId: string }) => i.eventId));

      const stored = (
        await api('GET', `/v1/policies?nameContains=${encodeURIComponent('unknown recipients')}`)
      ).body.items[0];
      const byId = await api('POST', '/v1/policies/backtest', { policyId: stored.id, from, to, limit: 1000 });
      expect(byId.body).toMatchObject({
        scanned: full.body.scanned,
        matched: full.body.matched,
        policy: { id: stored.id, version: stored.version },
      });
      // The project's enabled policies count in byDecision: at least the stored rule's own blocks.
      expect(byId.body.byDecision.block).toBeGreaterThanOrEqual(full.body.matched);
      const empty = await api('POST', '/v1/policies/backtest', {
        policy: draft,
        from: to,
        to: new Date(Date.parse(to) + 1000).toISOString(),
      });
      expect(empty.body).toMatchObject({ scanned: 0, matched: 0, items: [] });
      expect((await api('POST', '/v1/policies/backtest', { policy: draft, from: to, to: from })).status).toBe(
        400,
      );
    });
  });

  test('the backtest scan pages by whole milliseconds: ties across a page boundary and a millisecond larger than a page', async () => {
    const project = await createProject(stack.prisma, 'scan ties');
    const agent = newId();
    await stack.prisma.agent.create({ data: { id: agent, projectId: project.id, key: 'ties' } });
    // Its version (same id, as the rows below name it): the database refuses events of unknown versions.
    await stack.prisma.agentVersion.create({
      data: { id: agent, projectId: project.id, agentId: agent, version: '1' },
    });
    const t = Date.parse('2026-02-01T00:00:00Z');
    // 2 rows at t, 7 at t+1 ms, 3 at t+2 ms, 1 at t+3 ms.
    const times = [0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3].map((d) => new Date(t + d));
    await stack.prisma.event.createMany({
      data: times.map((time, i) => ({
        id: newId(),
        projectId: project.id,
        sessionId: agent,
        agentId: agent,
        agentVersionId: agent,
        type: 'agent.tool.started',
        time,
        sequence: i + 1,
        data: { toolCallId: newId(), toolName: `tool_${i}` },
      })),
    });
    const window = { from: new Date(t), to: new Date(t + 10) };
    for (const pageSize of [1, 3, 5, 100]) {
      const seen: Array<{ id: string; time: Date; toolName: string | null; agentKey: string | null }> = [];
      for await (const page of scanToolCalls(stack.prisma, project.id, { ...window, pageSize }))
        seen.push(...page);
      expect(seen).toHaveLength(times.length);
      expect(new Set(seen.map((c) => c.id)).size).toBe(times.length);
      const order = seen.map((c) => `${c.time.toISOString()}|${c.id}`);
      expect(order).toEqual([...order].sort());
      expect(seen[0]).toMatchObject({ agentKey: 'ties', toolName: expect.stringMatching(/^tool_/) });
    }
  });

  test('backtest streams 100k stored tool calls in keyset pages and counts them exactly', async () => {
    const project = await createProject(stack.prisma, 'backtest volume');
    const k = generateApiKey();
    await createApiKey(stack.prisma, project.id, {
      name: 'vol',
      prefix: k.prefix,
      hash: hashApiKey(k.secret),
      scopes: ['admin'],
    });
    const agent = newId();
    await stack.prisma.agent.create({ data: { id: agent, projectId: project.id, key: 'volume-agent' } });
    // Its version (same id, as the rows below name it): the database refuses events of unknown versions.
    await stack.prisma.agentVersion.create({
      data: { id: agent, projectId: project.id, agentId: agent, version: '1' },
    });
    const n = 100_000;
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    // Row i: send_money every 4th row (else get_balance); recipient a payee when i % 8 = 0, else an unknown IBAN.
    await stack.prisma.$executeRawUnsafe(
      `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, $3::uuid, 'agent.tool.started',
              to_timestamp($4::double precision / 1000) + (i * interval '10 millisecond'), i,
              jsonb_build_object('toolCallId', gen_random_uuid()::text,
                'toolName', CASE WHEN i % 4 = 0 THEN 'send_money' ELSE 'get_balance' END,
                'arguments', jsonb_build_object('recipient',
                  CASE WHEN i % 8 = 0 THEN 'SE3550000000054910000003' ELSE 'XX00' || i END, 'amount', i % 100))
       FROM generate_series(1, $5::int) AS i`,
      project.id,
      newId(),
      agent,
      t0,
      n,
    );
    const body = {
      policy: payeeRule(['SE3550000000054910000003']),
      from: new Date(t0).toISOString(),
      to: new Date(t0 + 86_400_000).toISOString(),
      limit: 10,
    };
    const timed = async () => {
      const started = performance.now();
      const res = await api('POST', '/v1/policies/backtest', body, k.secret);
      return { res, ms: Math.round(performance.now() - started) };
    };
    const first = await timed();
    const second = await timed();
    const r = second.res;
    // A figure for docs/guardrails.md, never asserted.
    console.log(
      `backtest of ${n} stored tool calls: ${first.ms} ms (first call), ${second.ms} ms (second call)`,
    );
    expect(first.res.body).toEqual({ ...r.body, tookMs: first.res.body.tookMs });
    expect(r.status).toBe(200);
    // send_money rows: i % 4 = 0 → 25,000; of them i % 8 = 0 go to a payee → 12,500 match.
    expect(r.body).toMatchObject({ scanned: n, matched: 12_500, truncated: false });
    expect(r.body.byDecision).toEqual({ allow: n - 12_500, warn: 0, require_approval: 0, block: 12_500 });
    expect(r.body.items).toHaveLength(10);
    expect(r.body.items[0].arguments.recipient).toBe('XX004');
  }, 120_000);
});
