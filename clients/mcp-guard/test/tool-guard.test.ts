import { silentLogger } from '@agent-warden/client';
import { FakeWarden } from '../../typescript/test/fake-warden';
import type { GuardConfig } from '../src/config';
import { ToolGuard, type UpstreamAnswer } from '../src/tool-guard';

/**
 * ToolGuard with the real TypeScript client against the client's HTTP test double of the service
 * (clients/typescript/test/fake-warden.ts): decisions become MCP answers, the server's answers pass
 * through, and every call leaves its events. The real service is in test/mcp-guard.int.test.ts.
 */
describe('ToolGuard', () => {
  let warden: FakeWarden;
  let guard: ToolGuard;
  let forwarded: unknown[];
  const config = (over: Partial<GuardConfig> = {}): GuardConfig => ({
    command: 'srv',
    args: [],
    baseUrl: warden.url,
    apiKey: 'test-key',
    mode: 'enforce',
    enabled: true,
    logLevel: 'silent',
    httpHost: '127.0.0.1',
    ...over,
  });
  const start = (over: Partial<GuardConfig> = {}) => {
    guard = new ToolGuard(config(over), silentLogger, { maxRetries: 0, requestTimeoutMs: 2000 });
    guard.tools.addListResult({ tools: [{ name: 'write_file', annotations: { destructiveHint: true } }] });
    guard.startSession({ client: { name: 'host', version: '1' }, server: { name: 'files', version: '2' } });
  };
  const upstream = (answer: UpstreamAnswer) => async (): Promise<UpstreamAnswer> => {
    forwarded.push(answer);
    return answer;
  };
  const ok: UpstreamAnswer = { result: { content: [{ type: 'text', text: 'Paid to NL91ABNA0417164300' }] } };
  const notCancelled = () => false;

  beforeEach(async () => {
    warden = await new FakeWarden().start();
    forwarded = [];
  });
  afterEach(async () => {
    await guard?.close();
    await warden.stop();
    expect(warden.contractViolations).toEqual([]);
  });

  it('allowed: forwards, answers the result unchanged, records started and completed', async () => {
    start();
    const call = { name: 'write_file', arguments: { path: '/a', content: 'x' } };
    expect(await guard.call(call, upstream(ok), notCancelled)).toEqual(ok);
    await guard.close();
    const [evaluate] = warden.requestsTo('/v1/guardrails/evaluate');
    expect(evaluate!.body).toMatchObject({
      tool: { name: 'write_file' },
      arguments: { path: '/a', content: 'x' },
      riskLevel: 'high',
      resource: { type: 'mcp_server', id: 'files' },
      mode: 'enforce',
    });
    expect(warden.eventsOfType('agent.tool.completed')[0]!.data).toMatchObject({
      toolName: 'write_file',
      result: ok.result,
    });
    expect(warden.eventsOfType('agent.session.started')[0]!.data).toMatchObject({
      attributes: { 'mcp.client.name': 'host', 'mcp.server.name': 'files' },
    });
    expect(warden.eventsOfType('agent.session.ended')[0]!.data).toMatchObject({ status: 'completed' });
  });

  it('block in enforce: never forwards, answers an isError result naming the policy', async () => {
    warden.decide = () => 'block';
    start();
    const answer = await guard.call({ name: 'write_file', arguments: {} }, upstream(ok), notCancelled);
    expect(forwarded).toEqual([]);
    expect(answer).toEqual({
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: 'Blocked by Agent Warden: the tool "write_file" was not run. Policy "test-block": test rule.',
          },
        ],
      },
    });
    await guard.close();
    expect(warden.eventsOfType('agent.tool.started')).toEqual([]);
    expect(warden.eventsOfType('agent.guardrail.evaluated')[0]!.data).toMatchObject({ outcome: 'blocked' });
  });

  it('block in monitor: runs and records what enforce would do', async () => {
    warden.decide = () => 'block';
    start({ mode: 'monitor' });
    expect(await guard.call({ name: 'write_file' }, upstream(ok), notCancelled)).toEqual(ok);
    expect(forwarded).toHaveLength(1);
  });

  it('approval: runs once approved; a denial is an isError result saying who and why', async () => {
    warden.decide = () => 'require_approval';
    start();
    expect(await guard.call({ name: 'write_file' }, upstream(ok), notCancelled)).toEqual(ok);
    warden.approvalPlan = { status: 'denied', afterMs: 20 };
    const denied = await guard.call({ name: 'write_file' }, upstream(ok), notCancelled);
    expect(forwarded).toHaveLength(1);
    expect(denied).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(denied)).toContain('was denied by alice@example.com: not today');
  });

  it("the server's isError result and JSON-RPC error pass through and are recorded as failed calls", async () => {
    start();
    const toolError: UpstreamAnswer = {
      result: { content: [{ type: 'text', text: 'disk full' }], isError: true },
    };
    const rpcError: UpstreamAnswer = { error: { code: -32602, message: 'Unknown tool: nope' } };
    expect(await guard.call({ name: 'write_file' }, upstream(toolError), notCancelled)).toEqual(toolError);
    expect(await guard.call({ name: 'nope' }, upstream(rpcError), notCancelled)).toEqual(rpcError);
    await guard.close();
    expect(warden.eventsOfType('agent.tool.failed').map((e) => e.data.error)).toEqual([
      { message: 'disk full', type: 'ToolError' },
      { message: 'Unknown tool: nope', type: 'McpError' },
    ]);
  });

  it('a call outside a session is refused, never forwarded unguarded', async () => {
    guard = new ToolGuard(config(), silentLogger);
    expect(await guard.call({ name: 'write_file' }, upstream(ok), notCancelled)).toMatchObject({
      error: { code: -32600 },
    });
    expect(forwarded).toEqual([]);
  });

  it('a call cancelled before it runs is never forwarded and gets no answer', async () => {
    start();
    expect(await guard.call({ name: 'write_file' }, upstream(ok), () => true)).toEqual({ cancelled: true });
    expect(forwarded).toEqual([]);
  });

  it('an earlier result taints a later argument copied from it (provenance)', async () => {
    start();
    await guard.call({ name: 'read_file', arguments: { path: '/invoice' } }, upstream(ok), notCancelled);
    await guard.call(
      { name: 'write_file', arguments: { path: '/pay', content: 'NL91 ABNA 0417 1643 00' } },
      upstream(ok),
      notCancelled,
    );
    const second = warden.requestsTo('/v1/guardrails/evaluate')[1]!.body as {
      provenance: {
        arguments: Array<{ path: string; origin: string; tainted: boolean; sources: unknown[] }>;
      };
    };
    expect(second.provenance.arguments.find((a) => a.path === 'content')).toMatchObject({
      origin: 'tool',
      tainted: true,
      sources: [expect.objectContaining({ toolName: 'read_file' })],
    });
  });

  it('service unreachable in enforce: fails closed with an isError result; fail-mode open runs', async () => {
    await warden.stop();
    start({ baseUrl: 'http://127.0.0.1:9' });
    const closed = await guard.call({ name: 'write_file' }, upstream(ok), notCancelled);
    expect(JSON.stringify(closed)).toContain('could not be reached');
    expect(forwarded).toEqual([]);
    await guard.close();
    start({ baseUrl: 'http://127.0.0.1:9', failMode: 'open' });
    expect(await guard.call({ name: 'write_file' }, upstream(ok), notCancelled)).toEqual(ok);
    warden = await new FakeWarden().start();
  });
});
