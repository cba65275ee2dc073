import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { silentLogger } from '@agent-warden/client';
import { z } from 'zod';
import { McpRelay, type RelayGuard } from '../src/relay';
import { ToolIndex } from '../src/call-mapping';
import type { HostAnswer, McpSessionInfo, UpstreamAnswer } from '../src/tool-guard';

/**
 * The relay between the SDK's real `Client` (the host) and the SDK's real `McpServer`, over
 * in-memory transports, with a scripted guard: everything but `tools/call` passes unchanged, and a
 * `tools/call` reaches the server only when the guard forwards it.
 */
describe('McpRelay', () => {
  type Verdict = 'forward' | 'stop' | 'hold';
  let verdict: Verdict;
  let serverCalls: string[];
  let sessions: McpSessionInfo[];
  let guardCalls: unknown[];
  let outcomes: HostAnswer[];
  let closedWith: string[];
  let release: (() => void) | undefined;
  let host: Client;
  let relay: McpRelay;
  let server: McpServer;

  const guard = (): RelayGuard => ({
    tools: new ToolIndex(),
    startSession: (info) => void sessions.push(info),
    close: async (status) => void closedWith.push(status ?? 'completed'),
    call: async (params, forward, isCancelled): Promise<HostAnswer> => {
      guardCalls.push(params);
      if (verdict === 'stop')
        return { result: { content: [{ type: 'text', text: 'stopped' }], isError: true } };
      if (verdict === 'hold') {
        await new Promise<void>((r) => (release = r));
        if (isCancelled()) {
          outcomes.push({ cancelled: true });
          return { cancelled: true };
        }
      }
      const answer: UpstreamAnswer = await forward();
      return answer;
    },
  });

  beforeEach(async () => {
    verdict = 'forward';
    serverCalls = [];
    sessions = [];
    guardCalls = [];
    outcomes = [];
    closedWith = [];
    release = undefined;
    server = new McpServer(
      { name: 'test-server', version: '1.2.3' },
      { capabilities: { logging: {} }, instructions: 'be nice' },
    );
    server.registerTool(
      'echo',
      { description: 'echoes', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
      async ({ text }, extra) => {
        serverCalls.push(text);
        const token = extra._meta?.progressToken;
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2 },
          });
        if (text === 'fail') return { content: [{ type: 'text', text: 'it failed' }], isError: true };
        return { content: [{ type: 'text', text: `echo: ${text}` }] };
      },
    );
    server.registerResource('readme', 'file:///readme', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'hello' }],
    }));
    server.registerPrompt('greet', { argsSchema: { name: z.string() } }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hi ${name}` } }],
    }));
    const [hostSide, proxyHostSide] = InMemoryTransport.createLinkedPair();
    const [proxyServerSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    relay = new McpRelay(proxyHostSide, proxyServerSide, guard(), silentLogger);
    await relay.start();
    host = new Client({ name: 'host', version: '9.9' });
    await host.connect(hostSide);
  });

  afterEach(async () => {
    await relay.close('host');
  });

  it('passes initialize through and starts the session with both names', () => {
    expect(host.getServerVersion()).toEqual({ name: 'test-server', version: '1.2.3' });
    expect(host.getInstructions()).toBe('be nice');
    expect(host.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: {},
      prompts: {},
      logging: {},
    });
    expect(sessions).toEqual([
      {
        client: { name: 'host', version: '9.9' },
        server: { name: 'test-server', version: '1.2.3' },
        protocolVersion: expect.any(String),
      },
    ]);
  });

  it('relays tools/list, resources and prompts unchanged, and never guards them', async () => {
    const { tools } = await host.listTools();
    expect(tools.map((t) => [t.name, t.annotations])).toEqual([['echo', { readOnlyHint: true }]]);
    expect((await host.readResource({ uri: 'file:///readme' })).contents).toEqual([
      { uri: 'file:///readme', text: 'hello' },
    ]);
    const prompt = await host.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hi Ada' });
    expect(await host.ping()).toEqual({});
    expect(guardCalls).toEqual([]);
  });

  it('puts tools/call through the guard, which forwards it; progress and isError results pass', async () => {
    const progress: number[] = [];
    const r = await host.callTool({ name: 'echo', arguments: { text: 'a' } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(r).toEqual({ content: [{ type: 'text', text: 'echo: a' }] });
    expect(progress).toEqual([1]);
    expect(await host.callTool({ name: 'echo', arguments: { text: 'fail' } })).toEqual({
      content: [{ type: 'text', text: 'it failed' }],
      isError: true,
    });
    expect(guardCalls).toEqual([
      expect.objectContaining({ name: 'echo', arguments: { text: 'a' } }),
      { name: 'echo', arguments: { text: 'fail' } },
    ]);
    expect(serverCalls).toEqual(['a', 'fail']);
  });

  it('answers a stopped call itself: the server never sees it', async () => {
    verdict = 'stop';
    const r = await host.callTool({ name: 'echo', arguments: { text: 'b' } });
    expect(r).toEqual({ content: [{ type: 'text', text: 'stopped' }], isError: true });
    expect(serverCalls).toEqual([]);
  });

  it('a call cancelled while held never reaches the server', async () => {
    verdict = 'hold';
    const abort = new AbortController();
    const answer = host.callTool({ name: 'echo', arguments: { text: 'c' } }, undefined, {
      signal: abort.signal,
    });
    await until(() => release !== undefined);
    abort.abort('changed my mind');
    await expect(answer).rejects.toThrow();
    release!();
    await until(() => outcomes.length === 1);
    expect(outcomes).toEqual([{ cancelled: true }]);
    expect(serverCalls).toEqual([]);
  });

  it('the host leaving ends the session as completed', async () => {
    await host.close();
    expect(await relay.closed).toBe('host');
    expect(closedWith).toEqual(['completed']);
  });

  it('the server leaving ends it as failed, and a held call ends with the connection', async () => {
    verdict = 'hold';
    const answer = host.callTool({ name: 'echo', arguments: { text: 'd' } });
    await until(() => release !== undefined);
    await server.close();
    expect(await relay.closed).toBe('server');
    expect(closedWith).toEqual(['failed']);
    release!();
    await expect(answer).rejects.toThrow(/closed/i);
  });
});

/** Resolves once `cond()` is true (polled every 5 ms); rejects after 5 s. */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}
