import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, waitFor } from './support/http';
import { sh, userEnv } from './support/shell';
import { startStandalone, type StandaloneProcess } from './support/standalone';

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_DIR = path.join(ROOT, 'clients/mcp-guard');
/** The real filesystem server, run with node from the repository's node_modules (no network at test time). */
const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js', {
  paths: [PACKAGE_DIR],
});

/**
 * `npx @agent-warden/mcp-guard -- <server>` outside the monorepo (issue 16 item 3): the package is
 * packed (`npm pack` runs its tsup build), installed into a new npm project, and its `mcp-guard`
 * bin — plain `node`, no tsx, no workspace package — fronts the real filesystem MCP server for the
 * SDK's client; the read it guarded is a session with its tool call in the API.
 */
describe('mcp-guard, packed and installed in a new project', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-mcp-guard-pack-'));
  const project = path.join(tmp, 'project');
  const files = path.join(tmp, 'files');
  const apiKey = 'aw_mcp_guard_pack_test_key_00000000001';
  let warden: StandaloneProcess;
  let packedFiles: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(project);
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, 'hello.txt'), 'hello from a guarded server\n');
    const pack = async () => {
      const packed = await sh('npm', ['pack', '--json', '--pack-destination', tmp], PACKAGE_DIR);
      const report = packed.stdout.slice(packed.stdout.search(/^\[/m));
      const [info] = JSON.parse(report) as { filename: string; files: { path: string }[] }[];
      packedFiles = info!.files.map((f) => f.path).sort();
      await sh('npm', ['init', '-y'], project);
      await sh(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(tmp, info!.filename)],
        project,
      );
    };
    [warden] = await Promise.all([
      startStandalone({
        WARDEN_DATA_DIR: path.join(tmp, 'data'),
        WARDEN_INIT_API_KEY: apiKey,
      }),
      pack(),
    ]);
  }, 300_000);

  afterAll(async () => {
    await warden?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  test('the tarball holds the build only, and the installed bin needs no workspace package', () => {
    expect(packedFiles.filter((f) => f.startsWith('src/') || f.startsWith('bin/'))).toEqual([]);
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/cli.js', 'package.json', 'README.md']));
    const installed = path.join(project, 'node_modules/@agent-warden/mcp-guard');
    const cli = fs.readFileSync(path.join(installed, 'dist/cli.js'), 'utf8');
    expect(cli.startsWith('#!/usr/bin/env node')).toBe(true);
    expect(cli).not.toMatch(/require\("@agent-warden\//);
    expect(fs.existsSync(path.join(project, 'node_modules/.bin/mcp-guard'))).toBe(true);
    expect(fs.existsSync(path.join(project, 'node_modules/tsx'))).toBe(false);
  });

  test('its mcp-guard command fronts a real MCP server; the guarded read is a session in the API', async () => {
    const transport = new StdioClientTransport({
      command: path.join(project, 'node_modules/.bin/mcp-guard'),
      args: ['--mode', 'enforce', '--log-level', 'warn', '--', process.execPath, FILESYSTEM_SERVER, files],
      env: userEnv({ WARDEN_URL: warden.url, WARDEN_API_KEY: apiKey }),
      cwd: project,
      stderr: 'inherit',
    });
    const mcp = new Client({ name: 'mcp-guard-pack-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const read = (await mcp.callTool({
        name: 'read_text_file',
        arguments: { path: path.join(files, 'hello.txt') },
      })) as { content: { text?: string }[]; isError?: boolean };
      expect(read.isError).toBeFalsy();
      expect(read.content.map((c) => c.text).join('')).toContain('hello from a guarded server');
    } finally {
      await mcp.close();
    }
    const tools = await waitFor(async () => {
      const sessions = await call(warden.url, 'GET', '/v1/sessions?limit=10', { apiKey });
      for (const s of sessions.body.items ?? []) {
        const detail = await call(warden.url, 'GET', `/v1/sessions/${s.id}`, { apiKey });
        const started = (detail.body.events ?? []).filter(
          (e: { type: string; data: { toolName?: string } }) =>
            e.type === 'agent.tool.completed' && e.data.toolName === 'read_text_file',
        );
        if (started.length > 0) return started;
      }
      return undefined;
    }, 60_000);
    expect(tools).toHaveLength(1);
  }, 120_000);
});
