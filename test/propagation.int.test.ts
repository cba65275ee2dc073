import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { call } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

const ROOT = path.resolve(__dirname, '..');
/** docs/architecture.md#guardrail-policies: a change reaches every gateway within a second; allow for the 50 ms poll and request time. */
const BOUND_MS = 1_500;
const POLL_MS = 50;

/** A gateway running as its own OS process, as in production (stack mode). */
interface GatewayProcess {
  url: string;
  stop(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/**
 * Starts `node --import tsx services/gateway/src/main.ts`; ready when it logs "gateway listening"
 * with its port and, with `followsHints`, "following policy-changes" (it joined its consumer group).
 */
async function startGatewayProcess(
  env: Record<string, string>,
  followsHints: boolean,
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/gateway/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Keep reading stdout for the process's whole life, so its pipe never fills up.
  const lines = readline.createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('gateway did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
    let listening: number | undefined;
    let following = !followsHints;
    lines.on('line', (line) => {
      let rec: { msg?: string; port?: unknown; level?: string };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        return;
      }
      if (rec.msg === 'gateway listening' && typeof rec.port === 'number') listening = rec.port;
      if (rec.msg === 'following policy-changes') following = true;
      if (listening !== undefined && following) {
        clearTimeout(timer);
        resolve(listening);
      }
      if (rec.level === 'error' || rec.level === 'fatal') process.stderr.write(line + '\n');
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await waitExit(child);
      lines.close();
    },
  };
}

/**
 * Policy changes made through the api reach two separate gateway processes within a second, both
 * ways a gateway learns of them (docs/decisions.md "Policy changes reach gateways…"): the api's
 * hint on the `policy-changes` topic (the poll set to 10 minutes, so only the hint can explain a
 * switch) and the poll of the policy fingerprint alone (hints not followed).
 */
describe.each([
  {
    path: 'the Kafka hint (poll every 10 min)',
    env: { WARDEN_POLICY_REFRESH_MS: '600000', WARDEN_POLICY_HINTS: 'true' },
    followsHints: true,
  },
  {
    path: 'the poll alone (every 1 s, hints not followed)',
    env: { WARDEN_POLICY_REFRESH_MS: '1000', WARDEN_POLICY_HINTS: 'false' },
    followsHints: false,
  },
])('policy propagation to every gateway through $path', ({ env: gatewayEnv, followsHints }) => {
  let stack: TestStack;
  let gateways: GatewayProcess[] = [];
  let agentId: string;
  const figures: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ projector: false });
    const env = {
      DATABASE_URL: stack.env.DATABASE_URL!,
      KAFKA_BROKERS: stack.env.KAFKA_BROKERS!,
      KAFKA_TOPIC_PREFIX: stack.topicPrefix,
      WARDEN_EVENT_PARTITIONS: '3',
    };
    gateways = await Promise.all([
      startGatewayProcess({ ...env, ...gatewayEnv }, followsHints),
      startGatewayProcess({ ...env, ...gatewayEnv }, followsHints),
    ]);
    const id = await call(gateways[0]!.url, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'propagation' }, version: { version: '1' } },
    });
    agentId = id.body.agentId;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await stack?.stop();
    if (figures.length > 0)
      console.log(
        `propagation to 2 gateway processes (ms), ${gatewayEnv.WARDEN_POLICY_HINTS === 'true' ? 'hint' : 'poll'}:\n${figures.join('\n')}`,
      );
  }, 60_000);

  const api = (method: string, p: string, body?: unknown) =>
    call(stack.apiUrl, method, p, { apiKey: stack.apiKey, body });
  const decide = async (g: GatewayProcess) => {
    const r = await call(g.url, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: {
        agentId,
        tool: { name: 'bash' },
        arguments: { command: 'rm -rf /' },
        mode: 'enforce',
        dryRun: true,
      },
    });
    expect(r.status).toBe(200);
    return r.body as { policyDecision: string; matchedGuardrails: Array<{ version: number }> };
  };

  /**
   * Makes a change through the api, then polls both gateways every 50 ms until each answers
   * `expected` (and names `version` when given). Returns, per gateway, ms from the api's answer.
   */
  async function change(
    label: string,
    write: () => Promise<{ status: number }>,
    expected: string,
    version?: number,
  ): Promise<number[]> {
    const res = await write();
    expect(res.status).toBeLessThan(300);
    const t0 = performance.now();
    const took = await Promise.all(
      gateways.map(async (g) => {
        for (;;) {
          const d = await decide(g);
          const seen =
            d.policyDecision === expected &&
            (version === undefined || d.matchedGuardrails[0]?.version === version);
          const ms = performance.now() - t0;
          if (seen) return Math.round(ms);
          if (ms > 5_000) throw new Error(`${label}: ${g.url} still answers ${d.policyDecision} after 5 s`);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      }),
    );
    figures.push(`${label}: ${took.join(', ')}`);
    return took;
  }

  test('create, update, disable, enable, delete and default-decision changes reach both gateways within a second', async () => {
    for (const g of gateways) expect((await decide(g)).policyDecision).toBe('allow');
    const policy = {
      name: 'no root wipes',
      decision: 'block',
      match: {
        all: [
          { field: 'tool.name', op: 'eq', value: 'bash' },
          { field: 'arguments.command', op: 'regex', value: 'rm\\s+-(rf|fr)\\s+/' },
        ],
      },
    };
    let id = '';
    const steps: Array<[string, () => Promise<{ status: number }>, string, number?]> = [
      [
        'create (block)',
        async () => {
          const r = await api('POST', '/v1/policies', policy);
          id = r.body.id;
          return r;
        },
        'block',
        1,
      ],
      ['disable', () => api('POST', `/v1/policies/${id}/disable`), 'allow'],
      ['enable', () => api('POST', `/v1/policies/${id}/enable`), 'block', 3],
      [
        'update (require_approval)',
        () => api('PUT', `/v1/policies/${id}`, { ...policy, decision: 'require_approval' }),
        'require_approval',
        4,
      ],
      ['delete', () => api('DELETE', `/v1/policies/${id}`), 'allow'],
      [
        'default decision warn',
        () => api('PUT', '/v1/projects/current/settings', { defaultDecision: 'warn' }),
        'warn',
      ],
    ];
    for (const [label, write, expected, version] of steps) {
      const took = await change(label, write, expected, version);
      for (const ms of took) expect(ms).toBeLessThanOrEqual(BOUND_MS);
    }
  }, 60_000);
});
