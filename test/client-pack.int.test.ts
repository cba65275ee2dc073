import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, waitFor } from './support/http';
import { sh, userEnv } from './support/shell';
import { startStandalone, type StandaloneProcess } from './support/standalone';

const ROOT = path.resolve(__dirname, '..');
const CLIENT_DIR = path.join(ROOT, 'clients/typescript');
const README = path.join(CLIENT_DIR, 'README.md');

/** What the README's quick start does (checked against the README below, so the two cannot drift). */
const AGENT_KEY = 'billing-assistant';
const ESM_TOOL = 'stripe.refund';
const ESM_INPUT = 'Please refund order 4412';
const CJS_TOOL = 'crm.lookup';
const CJS_INPUT = 'Look up a customer';

interface FencedBlock {
  lang: string;
  code: string;
}

/**
 * The fenced code blocks of the README section titled `heading` (up to the next heading of the
 * same or a higher level), in order, with their info-string language.
 */
function sectionBlocks(markdown: string, heading: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let level = 0;
  let fence: string | undefined;
  let lang = '';
  let body: string[] = [];
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      if (line.trim() === fence) {
        if (level) blocks.push({ lang, code: body.join('\n') + '\n' });
        fence = undefined;
      } else body.push(line);
      continue;
    }
    const open = /^\s*(```+|~~~+)\s*([^\s`]*)/.exec(line);
    if (open) {
      [fence, lang, body] = [open[1]!, open[2]!.toLowerCase(), []];
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (!h) continue;
    if (level && h[1]!.length <= level) break;
    if (!level && h[2]!.toLowerCase() === heading.toLowerCase()) level = h[1]!.length;
  }
  return blocks;
}

function installedVersion(pkg: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
}
interface SessionItem {
  id: string;
  agentId: string;
  status: string;
  inputSummary: string | null;
}

/**
 * Issue 16 item 5: `@agent-warden/client` installs outside the monorepo. The test packs it
 * (`npm pack`, which builds it), installs the tarball into a new npm project in a temporary
 * directory, runs the README's quick start as written with plain `node` (ES module and CommonJS)
 * and `tsc` (its types), against the standalone service, then reads back through the API the
 * session, the guarded tool call and its guardrail evaluation the quick start made.
 */
describe('the TypeScript client, packed and installed in a new project', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-client-pack-'));
  const project = path.join(tmp, 'project');
  const apiKey = 'aw_client_pack_test_key_0000000000000001';
  let service: StandaloneProcess;
  let tarball: string;
  let packedFiles: string[] = [];
  let esm = '';
  let cjs = '';

  beforeAll(async () => {
    const blocks = sectionBlocks(fs.readFileSync(README, 'utf8'), 'Quick start');
    esm = blocks.find((b) => b.lang === 'ts')?.code ?? '';
    cjs = blocks.find((b) => b.lang === 'js')?.code ?? '';

    const packAndInstall = async () => {
      // `npm pack` runs the package's `prepack` (the tsup build), then lists what it packed.
      const packed = await sh('npm', ['pack', '--json', '--pack-destination', tmp], CLIENT_DIR);
      // The build's own output comes first on stdout; npm's JSON report is the rest.
      const report = packed.stdout.slice(packed.stdout.search(/^\[/m));
      const [info] = JSON.parse(report) as { filename: string; files: { path: string }[] }[];
      tarball = path.join(tmp, info!.filename);
      packedFiles = info!.files.map((f) => f.path).sort();
      fs.mkdirSync(project);
      await sh('npm', ['init', '-y'], project);
      // typescript and @types/node for the type check, at the versions this repository uses.
      await sh(
        'npm',
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          tarball,
          `typescript@${installedVersion('typescript')}`,
          `@types/node@${installedVersion('@types/node')}`,
        ],
        project,
      );
    };
    const data = path.join(tmp, 'warden');
    [service] = await Promise.all([
      startStandalone({ WARDEN_DATA_DIR: data, WARDEN_INIT_API_KEY: apiKey }),
      packAndInstall(),
    ]);
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  test("the README's quick start holds a TypeScript block and a CommonJS block, with what this test reads back", () => {
    expect(esm).toContain("from '@agent-warden/client'");
    expect(esm).toContain(`key: '${AGENT_KEY}'`);
    expect(esm).toContain(`name: '${ESM_TOOL}'`);
    expect(esm).toContain(ESM_INPUT);
    expect(cjs).toContain("require('@agent-warden/client')");
    expect(cjs).toContain(`name: '${CJS_TOOL}'`);
    expect(cjs).toContain(CJS_INPUT);
  });

  test('the tarball holds the build (ESM, CommonJS, declarations) and needs no workspace package', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/index.mjs',
        'dist/index.js',
        'dist/index.d.mts',
        'dist/index.d.ts',
        'package.json',
      ]),
    );
    expect(packedFiles.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
    const installed = path.join(project, 'node_modules/@agent-warden/client');
    const pkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      private?: boolean;
      dependencies?: Record<string, string>;
    };
    expect(pkg.private).toBeUndefined();
    expect(Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@agent-warden/'))).toEqual([]);
    for (const file of ['index.mjs', 'index.js', 'index.d.mts', 'index.d.ts']) {
      expect(fs.readFileSync(path.join(installed, 'dist', file), 'utf8')).not.toContain(
        '@agent-warden/contracts',
      );
    }
    // Nothing else of this repository is reachable from the project (it is outside the checkout).
    expect(fs.existsSync(path.join(project, 'node_modules/@agent-warden/contracts'))).toBe(false);
    expect(path.relative(ROOT, project).startsWith('..')).toBe(true);
  });

  test('its types check: the quick start as a .mts file and a CommonJS import in a .cts file (tsc, strict, nodenext)', async () => {
    fs.writeFileSync(path.join(project, 'quickstart.mts'), esm);
    fs.writeFileSync(
      path.join(project, 'require.cts'),
      [
        "import { WardenClient, GuardrailBlockedError, type GuardDecision } from '@agent-warden/client';",
        "const warden: WardenClient = new WardenClient({ enabled: false, agent: { key: 'x' } });",
        'const decision: Promise<GuardDecision> = warden.guard({ tool: { name: "t" } });',
        'export const checks = [decision, GuardrailBlockedError];',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['quickstart.mts', 'require.cts'],
      }),
    );
    const tsc = await sh(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'],
      project,
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
  }, 120_000);

  /** The agent's sessions (newest first) once `count` of them are stored. */
  async function sessionsOfAgent(count: number): Promise<SessionItem[]> {
    return waitFor(async () => {
      const agents = await call(service.url, 'GET', '/v1/agents', { apiKey });
      const agent = (agents.body.items as { id: string; key: string }[]).find((a) => a.key === AGENT_KEY);
      if (!agent) return undefined;
      const res = await call(service.url, 'GET', `/v1/sessions?agentId=${agent.id}&limit=10`, { apiKey });
      const items = res.body.items as SessionItem[];
      return items.length >= count ? items : undefined;
    });
  }

  /** Checks the session of `inputSummary`: ended, with one guarded call of `tool` and its evaluation. */
  async function expectStoredQuickStart(sessions: SessionItem[], inputSummary: string, tool: string) {
    const session = sessions.find((s) => s.inputSummary === inputSummary);
    expect(session).toBeDefined();
    // Every event of the session is stored (the session ends last).
    const detail = await waitFor(async () => {
      const res = await call(service.url, 'GET', `/v1/sessions/${session!.id}`, { apiKey });
      const types = (res.body.events as StoredEvent[]).map((e) => e.type);
      return types.includes('agent.session.ended') && types.includes('agent.tool.completed')
        ? res.body
        : undefined;
    });
    expect(detail.status).toBe('completed');
    const events = detail.events as StoredEvent[];
    const started = events.filter((e) => e.type === 'agent.tool.started');
    const completed = events.filter((e) => e.type === 'agent.tool.completed');
    expect(started.map((e) => e.data.toolName)).toEqual([tool]);
    expect(completed.map((e) => e.data.toolName)).toEqual([tool]);
    expect(events.filter((e) => e.type === 'agent.tool.failed')).toEqual([]);
    const toolCallId = started[0]!.data.toolCallId;
    expect(completed[0]!.data.toolCallId).toBe(toolCallId);
    // The guard check before the call: stored as an evaluation of that tool call, and as the client's event.
    const evaluations = await call(service.url, 'GET', `/v1/sessions/${session!.id}/evaluations`, { apiKey });
    expect(evaluations.status).toBe(200);
    expect(evaluations.body.items).toHaveLength(1);
    expect(evaluations.body.items[0]).toMatchObject({ toolName: tool, toolCallId, mode: 'monitor' });
    const evaluated = events.filter((e) => e.type === 'agent.guardrail.evaluated');
    expect(evaluated.map((e) => e.data)).toEqual([
      expect.objectContaining({ evaluationId: evaluations.body.items[0].id, toolCallId, outcome: 'ran' }),
    ]);
    return completed[0]!;
  }

  test('the quick start as written runs with plain node as an ES module, and its session, tool call and guard check are stored', async () => {
    fs.writeFileSync(path.join(project, 'quickstart.mjs'), esm);
    const out = await sh(
      process.execPath,
      ['quickstart.mjs'],
      project,
      userEnv({ WARDEN_BASE_URL: service.url, WARDEN_API_KEY: apiKey }),
    );
    // The client logs what fails (registration, unsent events) as warnings on stderr.
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('refunded re_1');
    const sessions = await sessionsOfAgent(1);
    expect(sessions).toHaveLength(1);
    const completed = await expectStoredQuickStart(sessions, ESM_INPUT, ESM_TOOL);
    expect(completed.data.result).toEqual({ refundId: 're_1', amount: 120 });
  }, 60_000);

  test('the CommonJS block as written runs with plain node (require), and its session, tool call and guard check are stored', async () => {
    fs.writeFileSync(path.join(project, 'quickstart.cjs'), cjs);
    const out = await sh(
      process.execPath,
      ['quickstart.cjs'],
      project,
      userEnv({ WARDEN_BASE_URL: service.url, WARDEN_API_KEY: apiKey }),
    );
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('found 42');
    const sessions = await sessionsOfAgent(2);
    expect(sessions).toHaveLength(2);
    const completed = await expectStoredQuickStart(sessions, CJS_INPUT, CJS_TOOL);
    expect(completed.data.result).toEqual({ customer: 42 });
  }, 60_000);
});
