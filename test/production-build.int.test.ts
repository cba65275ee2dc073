/**
 * The production image's contents without Docker (no engine on CI machines): a scratch copy of the
 * working tree goes through infra/docker/build-production.sh — the Dockerfile's build stage, the
 * same script — and the compiled services then run as the image runs them, with `node`, production
 * dependencies only and no TypeScript source left, on the real PostgreSQL, Kafka and Redis:
 * migrations applied by the compiled CLI to an empty database, then gateway, projector and api as
 * three processes whose secrets come from files (`<NAME>_FILE`, docs/operations.md "Secrets").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { newId } from '@agent-warden/contracts';
import { randomSuffix, requireEnv } from './support/env';
import { call, waitFor } from './support/http';

const ROOT = path.resolve(__dirname, '..');

/** A free loopback port (the OS picks it; closed again before the service binds it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Copies the working tree's files (tracked and untracked, not ignored) and hard-links the installed dependencies. */
function scratchCopy(dir: string): void {
  execFileSync(
    'bash',
    [
      '-c',
      'git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$0"',
      dir,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const linked = ['node_modules', 'libs/db/src/generated', 'services/dashboard/dist'];
  for (const group of ['libs', 'services', 'clients'])
    for (const ws of fs.readdirSync(path.join(ROOT, group)))
      if (fs.existsSync(path.join(ROOT, group, ws, 'node_modules')))
        linked.push(`${group}/${ws}/node_modules`);
  for (const d of linked) {
    if (!fs.existsSync(path.join(ROOT, d))) continue;
    fs.mkdirSync(path.dirname(path.join(dir, d)), { recursive: true });
    execFileSync('cp', ['-al', path.join(ROOT, d), path.join(dir, d)]);
  }
  // npm rewrites its hidden lockfile in place: give the copy its own, not a link to the checkout's.
  const hidden = path.join(dir, 'node_modules/.package-lock.json');
  if (fs.existsSync(hidden)) {
    const text = fs.readFileSync(hidden);
    fs.rmSync(hidden);
    fs.writeFileSync(hidden, text);
  }
}

interface Service {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** `node <entry>` in the built tree, as the image's CMD runs it; resolves once /health answers. */
async function startCompiled(dir: string, entry: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null)
      throw new Error(`${entry} exited with ${child.exitCode}:\n${out.slice(-3000)}`);
    const r = await fetch(`${url}/ready`).catch(() => undefined);
    return r?.ok ? true : undefined;
  }, 90_000);
  return { child, url, output: () => out };
}

function stop(s: Service | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!s || s.child.exitCode !== null) return resolve();
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}

describe('production build (infra/docker/build-production.sh): compiled services with production dependencies', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-build-'));
  const secrets = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-secrets-'));
  const dbName = `warden_test_${randomSuffix()}`;
  const services: Service[] = [];

  afterAll(async () => {
    await Promise.all(services.map(stop));
    const admin = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end());
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(secrets, { recursive: true, force: true });
  }, 60_000);

  test('the build leaves JavaScript and production dependencies only', () => {
    scratchCopy(dir);
    execFileSync('bash', ['infra/docker/build-production.sh'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Every workspace points at its compiled entry; no TypeScript source and no dev tool is left.
    const mains = ['libs/policy', 'libs/db', 'services/gateway', 'services/projector', 'services/api'].map(
      (ws) => JSON.parse(fs.readFileSync(path.join(dir, ws, 'package.json'), 'utf8')).main,
    );
    expect(mains).toEqual(Array(5).fill('src/index.js'));
    const ts = execFileSync(
      'bash',
      [
        '-c',
        "find libs services -path '*/node_modules' -prune -o -name '*.ts' ! -name '*.d.ts' -print | head -5",
      ],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(ts).toBe('');
    // (typescript itself stays: @prisma/client lists it as a dependency.)
    for (const dev of ['tsx', 'jest', 'eslint', 'prettier'])
      expect({ dev, installed: fs.existsSync(path.join(dir, 'node_modules', dev)) }).toEqual({
        dev,
        installed: false,
      });
    expect(fs.existsSync(path.join(dir, 'services/dashboard/dist/index.html'))).toBe(true);
  }, 600_000);

  test('the compiled migration CLI, gateway, projector and api run with secrets from files and store a session', async () => {
    // An empty database: the compiled CLI applies every migration, reading its URL from a file.
    const base = requireEnv('DATABASE_URL');
    const admin = new Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`).finally(() => admin.end());
    const u = new URL(base);
    u.pathname = `/${dbName}`;
    const write = (name: string, value: string) => {
      const f = path.join(secrets, name);
      fs.writeFileSync(f, value + '\n', { mode: 0o600 });
      return f;
    };
    const apiKey = `aw_${randomSuffix()}${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
    const env = {
      DATABASE_URL_FILE: write('database_url', u.toString()),
      KAFKA_BROKERS: requireEnv('KAFKA_BROKERS'),
      REDIS_URL: requireEnv('REDIS_URL'),
      KAFKA_TOPIC_PREFIX: `b${randomSuffix()}.`,
      WARDEN_PROJECTOR_GROUP: `projector-${randomSuffix()}`,
      WARDEN_QUEUE_PREFIX: `q${randomSuffix()}`,
      WARDEN_DATA_DIR: path.join(dir, 'data'),
    };
    const migrated = execFileSync(process.execPath, ['libs/migrations/src/cli/migrate.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL_FILE: env.DATABASE_URL_FILE },
      encoding: 'utf8',
    });
    expect(migrated).toMatch(/^Applied \d+ migration\(s\)/);

    const api = await startCompiled(dir, 'services/api/src/main.js', {
      ...env,
      WARDEN_JWT_SECRET_FILE: write('jwt_secret', `s${randomSuffix()}`.repeat(8)),
      WARDEN_INIT_API_KEY_FILE: write('init_api_key', apiKey),
    });
    services.push(api);
    const gateway = await startCompiled(dir, 'services/gateway/src/main.js', env);
    services.push(gateway);
    const projector = await startCompiled(dir, 'services/projector/src/main.js', env);
    services.push(projector);

    // A policy with an operator the registry found among the compiled modules (cidr).
    const policy = await call(api.url, 'POST', '/v1/policies', {
      apiKey,
      body: {
        name: 'no cloud metadata',
        decision: 'block',
        match: {
          all: [
            { field: 'tool.name', op: 'eq', value: 'http_get' },
            { field: 'arguments.host', op: 'cidr', value: ['169.254.0.0/16'] },
          ],
        },
      },
    });
    expect(policy.status).toBe(201);
    const agent = await call(gateway.url, 'POST', '/v1/agents/identify', {
      apiKey,
      body: { agent: { key: 'built-agent' }, version: { version: '1.0.0' } },
    });
    expect(agent.status).toBe(200);
    const { agentId, agentVersionId } = agent.body;
    const decision = await waitFor(async () => {
      const r = await call(gateway.url, 'POST', '/v1/guardrails/evaluate', {
        apiKey,
        body: {
          agentId,
          agentVersionId,
          mode: 'enforce',
          tool: { name: 'http_get' },
          arguments: { host: '169.254.169.254' },
        },
      });
      return r.body.effectiveDecision === 'block' ? r.body : undefined;
    }, 30_000);
    expect(decision.matchedGuardrails[0].name).toBe('no cloud metadata');

    const sessionId = newId();
    const now = Date.now();
    const events = [
      { type: 'agent.session.started', data: { inputSummary: 'fetch a page' } },
      {
        type: 'agent.tool.started',
        data: { toolCallId: newId(), toolName: 'http_get', arguments: { host: 'example.org' } },
      },
      { type: 'agent.session.ended', data: { status: 'completed' } },
    ].map((e, i) => ({
      ...e,
      id: newId(),
      time: new Date(now + i).toISOString(),
      sessionId,
      agentId,
      agentVersionId,
      sequence: i + 1,
    }));
    const sent = await call(gateway.url, 'POST', '/v1/events', { apiKey, body: { events } });
    expect(sent.status).toBe(202);
    const session = await waitFor(async () => {
      const r = await call(api.url, 'GET', `/v1/sessions/${sessionId}`, { apiKey });
      return r.status === 200 && r.body.eventCount === 3 ? r.body : undefined;
    }, 60_000);
    expect(session.agentId).toBe(agentId);
    // No secret reached a log line.
    for (const s of services) {
      expect(s.output()).not.toContain(apiKey);
      expect(s.output()).not.toContain(u.password || '\u0000');
    }
  }, 300_000);
});
