import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WardenClient } from '@agent-warden/client';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

const ROOT = path.resolve(__dirname, '..');
const PROXY = path.join(ROOT, 'clients/mcp-guard/bin/mcp-guard.mjs');
/** The real filesystem server, run with node from node_modules (no network at test time). */
const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js', {
  paths: [path.join(ROOT, 'clients/mcp-guard')],
});
const AGENT_KEY = 'mcp-secure-filesystem-server';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

/**
 * A real MCP client (the SDK's `Client` over `StdioClientTransport`) starts `mcp-guard` in enforce
 * mode, which starts the real `@modelcontextprotocol/server-filesystem` on a temporary directory;
 * policies are made through the API, approvals decided through the API, and the session is read
 * back through the dashboard API (clients/mcp-guard/README.md).
 */
describe('mcp-guard: an MCP client through the proxy to a real MCP server', () => {
  let stack: TestStack;
  let dir: string;
  let mcp: Client;
  let transport: StdioClientTransport;
  const api = (method: string, p: string, body?: unknown) =>
    call(stack.apiUrl, method, p, { apiKey: stack.apiKey, body });
  const callTool = async (name: string, args: Record<string, unknown>) =>
    (await mcp.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

  beforeAll(async () => {
    stack = await startTestStack();
    dir = mkdtempSync(path.join(tmpdir(), 'mcp-guard-'));
    writeFileSync(path.join(dir, 'notes.txt'), 'Quarterly figures go to account ACCT-7731-XQ9.\n');
    const created = await Promise.all([
      api('POST', '/v1/policies', {
        name: 'No writes to blocked files',
        decision: 'block',
        match: {
          all: [
            { field: 'tool.name', op: 'eq', value: 'write_file' },
            { field: 'arguments.path', op: 'regex', value: 'blocked' },
          ],
        },
      }),
      api('POST', '/v1/policies', {
        name: 'Writes to approval files need a person',
        decision: 'require_approval',
        match: {
          all: [
            { field: 'tool.name', op: 'eq', value: 'write_file' },
            { field: 'arguments.path', op: 'regex', value: 'approval' },
          ],
        },
        approval: { timeoutSeconds: 120, onTimeout: 'deny' },
      }),
    ]);
    expect(created.map((r) => r.status)).toEqual([201, 201]);
    // The gateway refreshes its policies every 500 ms here: wait until it decides with both.
    const probe = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'probe' },
    });
    await waitFor(async () => {
      const [blocked, held] = await Promise.all([
        probe.guard({ tool: { name: 'write_file' }, arguments: { path: `${dir}/blocked.txt` } }),
        probe.guard({ tool: { name: 'write_file' }, arguments: { path: `${dir}/approval.txt` } }),
      ]);
      return blocked.policyDecision === 'block' && held.policyDecision === 'require_approval';
    });
    await probe.shutdown();

    transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, '--mode', 'enforce', '--flush-interval-ms', '200', '--log-level', 'warn', '--'].concat([
        process.execPath,
        FILESYSTEM_SERVER,
        dir,
      ]),
      env: {
        ...(process.env as Record<string, string>),
        WARDEN_URL: stack.gatewayUrl,
        WARDEN_API_KEY: stack.apiKey,
      },
      cwd: ROOT,
      stderr: 'inherit',
    });
    mcp = new Client({ name: 'mcp-guard-test', version: '1.0.0' });
    await mcp.connect(transport);
  }, 180_000);

  afterAll(async () => {
    await mcp?.close();
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('initialize and tools/list come from the real server, unchanged', async () => {
    expect(mcp.getServerVersion()).toMatchObject({ name: 'secure-filesystem-server' });
    expect(mcp.getServerCapabilities()).toMatchObject({ tools: {} });
    const { tools } = await mcp.listTools();
    const write = tools.find((t) => t.name === 'write_file');
    expect(write?.annotations).toMatchObject({ destructiveHint: true });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'list_directory']));
  });

  test('reads pass, and an allowed write writes', async () => {
    const read = await callTool('read_text_file', { path: path.join(dir, 'notes.txt') });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('ACCT-7731-XQ9');
    const wrote = await callTool('write_file', { path: path.join(dir, 'out.txt'), content: 'ACCT-7731-XQ9' });
    expect(wrote.isError).toBeFalsy();
    expect(readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('ACCT-7731-XQ9');
  });

  test('a server error stays a tool error of the server', async () => {
    const outside = await callTool('read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/outside allowed directories/);
  });

  test('a write blocked by policy never writes and answers an isError result with the reason', async () => {
    const target = path.join(dir, 'blocked.txt');
    const r = await callTool('write_file', { path: target, content: 'should not exist' });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Blocked by Agent Warden');
    expect(text(r)).toContain('No writes to blocked files');
    expect(text(r)).toContain('was not run');
    expect(existsSync(target)).toBe(false);
  });

  const pendingApproval = () =>
    waitFor(async () => {
      const r = await api('GET', '/v1/approvals?status=pending');
      return (r.body.items as Array<{ id: string; toolName: string }>).find(
        (a) => a.toolName === 'write_file',
      );
    });

  test('a write held for approval writes only after approval through the API', async () => {
    const target = path.join(dir, 'approval-granted.txt');
    const answer = callTool('write_file', { path: target, content: 'approved content' });
    const approval = await pendingApproval();
    expect(existsSync(target)).toBe(false);
    const decided = await api('POST', `/v1/approvals/${approval.id}/decision`, {
      status: 'approved',
      comment: 'fine',
      decidedBy: 'reviewer@example.com',
    });
    expect(decided.status).toBe(200);
    const r = await answer;
    expect(r.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved content');
  });

  test('a denied write never writes and answers an isError result saying who denied it', async () => {
    const target = path.join(dir, 'approval-denied.txt');
    const answer = callTool('write_file', { path: target, content: 'denied content' });
    const approval = await pendingApproval();
    const decided = await api('POST', `/v1/approvals/${approval.id}/decision`, {
      status: 'denied',
      comment: 'not this file',
      decidedBy: 'reviewer@example.com',
    });
    expect(decided.status).toBe(200);
    const r = await answer;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('denied by reviewer@example.com: not this file');
    expect(existsSync(target)).toBe(false);
  });

  test('the MCP session is one session in the dashboard API, with its tool calls, decisions and provenance', async () => {
    await mcp.close(); // the host leaves: the proxy ends the session and sends what is queued
    const agents = await api('GET', '/v1/agents');
    const agent = (agents.body.items as Array<{ id: string; key: string }>).find((a) => a.key === AGENT_KEY);
    expect(agent).toBeDefined();
    const sessions = await waitFor(async () => {
      const r = await api('GET', `/v1/sessions?agentId=${agent!.id}`);
      const items = r.body.items as Array<{ id: string; status: string }>;
      return items.length === 1 && items[0]!.status === 'completed' ? items : undefined;
    });
    const sessionId = sessions[0]!.id;
    const detail = await waitFor(async () => {
      const r = await api('GET', `/v1/sessions/${sessionId}`);
      const types = (r.body.events as Array<{ type: string }>).map((e) => e.type);
      return types.includes('agent.session.ended') &&
        types.filter((t) => t === 'agent.approval.resolved').length === 2
        ? r.body
        : undefined;
    });
    type Ev = { type: string; data: Record<string, unknown> };
    const events = detail.events as Ev[];
    const started = events.filter((e) => e.type === 'agent.tool.started');
    // Stopped calls never start; the four that ran (read, write, outside read, approved write) do.
    expect(
      started.map((e) => [
        e.data.toolName,
        path.basename(String((e.data.arguments as { path: string }).path)),
      ]),
    ).toEqual([
      ['read_text_file', 'notes.txt'],
      ['write_file', 'out.txt'],
      ['read_text_file', 'hostname'],
      ['write_file', 'approval-granted.txt'],
    ]);
    expect(started[1]!.data).toMatchObject({
      riskLevel: 'high',
      resource: { type: 'mcp_server', id: 'secure-filesystem-server' },
    });
    expect(events.filter((e) => e.type === 'agent.tool.completed').length).toBe(3);
    const failed = events.filter((e) => e.type === 'agent.tool.failed');
    expect(failed.map((e) => e.data.toolName)).toEqual(['read_text_file']);
    expect(events.find((e) => e.type === 'agent.session.started')!.data).toMatchObject({
      attributes: { 'mcp.client.name': 'mcp-guard-test', 'mcp.server.name': 'secure-filesystem-server' },
    });
    const outcomes = events.filter((e) => e.type === 'agent.guardrail.evaluated').map((e) => e.data.outcome);
    expect(outcomes).toEqual(['ran', 'ran', 'ran', 'blocked', 'awaiting_approval', 'awaiting_approval']);
    const resolved = events.filter((e) => e.type === 'agent.approval.resolved').map((e) => e.data.status);
    expect(resolved).toEqual(['approved', 'denied']);

    // The allowed write's content came from the earlier read: tainted, with that call as its source.
    const evaluations = await api('GET', `/v1/sessions/${sessionId}/evaluations`);
    const readCallId = started[0]!.data.toolCallId;
    const write = (
      evaluations.body.items as Array<{ toolCallId: string; provenance?: { arguments: unknown[] } }>
    ).find((e) => e.toolCallId === started[1]!.data.toolCallId);
    expect(write?.provenance?.arguments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'content',
          origin: 'tool',
          tainted: true,
          sources: [expect.objectContaining({ toolName: 'read_text_file', toolCallId: readCallId })],
        }),
      ]),
    );
  }, 60_000);

  describe('over Streamable HTTP (--http)', () => {
    let proxy: ChildProcess;
    let url: string;
    const HTTP_AGENT = 'mcp-http';

    beforeAll(async () => {
      proxy = spawn(
        process.execPath,
        [
          PROXY,
          '--http',
          '0',
          '--mode',
          'enforce',
          '--agent-key',
          HTTP_AGENT,
          '--flush-interval-ms',
          '200',
        ].concat(['--', process.execPath, FILESYSTEM_SERVER, dir]),
        {
          cwd: ROOT,
          env: { ...process.env, WARDEN_URL: stack.gatewayUrl, WARDEN_API_KEY: stack.apiKey },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      url = await new Promise<string>((resolve, reject) => {
        let buffered = '';
        proxy.once('exit', (code) => reject(new Error(`mcp-guard --http exited with ${code}: ${buffered}`)));
        proxy.stderr!.on('data', (d: Buffer) => {
          buffered += d.toString('utf8');
          const m = /"msg":"mcp-guard listening","url":"([^"]+)"/.exec(buffered);
          if (m) resolve(m[1]!);
        });
      });
    }, 60_000);

    afterAll(async () => {
      if (proxy && proxy.exitCode === null) {
        const exited = new Promise((r) => proxy.once('exit', r));
        proxy.kill('SIGTERM');
        await exited;
      }
    }, 30_000);

    const connect = async () => {
      const client = new Client({ name: 'http-host', version: '1.0.0' });
      const t = new StreamableHTTPClientTransport(new URL(url));
      await client.connect(t);
      return { client, transport: t };
    };

    test('each MCP session gets its own server and Warden session; a blocked write never writes', async () => {
      const a = await connect();
      const b = await connect();
      expect(a.transport.sessionId).toBeDefined();
      expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
      const blocked = path.join(dir, 'http-blocked.txt');
      const r = (await a.client.callTool({
        name: 'write_file',
        arguments: { path: blocked, content: 'x' },
      })) as ToolResult;
      expect(r.isError).toBe(true);
      expect(text(r)).toContain('No writes to blocked files');
      expect(existsSync(blocked)).toBe(false);
      const allowed = path.join(dir, 'http-allowed.txt');
      const ok = (await b.client.callTool({
        name: 'write_file',
        arguments: { path: allowed, content: 'y' },
      })) as ToolResult;
      expect(ok.isError).toBeFalsy();
      expect(readFileSync(allowed, 'utf8')).toBe('y');
      // DELETE ends each MCP session: its server process stops and its Warden session completes.
      await a.transport.terminateSession();
      await b.transport.terminateSession();
      await a.client.close();
      await b.client.close();

      const agents = await api('GET', '/v1/agents');
      const agent = (agents.body.items as Array<{ id: string; key: string }>).find(
        (x) => x.key === HTTP_AGENT,
      );
      expect(agent).toBeDefined();
      await waitFor(async () => {
        const list = await api('GET', `/v1/sessions?agentId=${agent!.id}`);
        const items = list.body.items as Array<{ status: string }>;
        return items.length === 2 && items.every((i) => i.status === 'completed');
      });
    }, 60_000);

    test('a request without a session, or with an unknown one, is refused', async () => {
      const none = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(none.status).toBe(400);
      const unknown = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'no-such-session',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(unknown.status).toBe(404);
    });
  });
});
