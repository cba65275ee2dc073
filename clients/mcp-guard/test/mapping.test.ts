import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
  ConnectionError,
  type Approval,
  type GuardDecision,
} from '@agent-warden/client';
import { riskFromAnnotations, toolCallOptions, ToolIndex } from '../src/call-mapping';
import { guardErrorResult, resultText } from '../src/results';
import { defaultAgentKey } from '../src/tool-guard';

describe('toolCallOptions: an MCP tools/call as the client guards it', () => {
  const tools = new ToolIndex();
  tools.addListResult({
    tools: [
      { name: 'read_file', annotations: { readOnlyHint: true } },
      { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true } },
      { name: 'mkdir', annotations: { destructiveHint: false } },
      { name: 'plain' },
    ],
  });
  const server = { name: 'secure-filesystem-server', version: '0.2.0' };

  it('keeps the name and arguments, adds the risk level and the server as resource', () => {
    expect(
      toolCallOptions(
        { name: 'write_file', arguments: { path: '/tmp/a', content: 'x' }, _meta: { progressToken: 1 } },
        { tools, server, environment: 'prod' },
      ),
    ).toEqual({
      name: 'write_file',
      arguments: { path: '/tmp/a', content: 'x' },
      riskLevel: 'high',
      resource: { type: 'mcp_server', id: 'secure-filesystem-server', environment: 'prod' },
    });
  });

  it('makes missing or odd arguments an empty object and states no risk for unknown tools', () => {
    expect(toolCallOptions({ name: 'plain' }, { tools })).toEqual({
      name: 'plain',
      arguments: {},
      resource: { type: 'mcp_server' },
    });
    expect(toolCallOptions({ name: 'x', arguments: [1, 2] }, { tools }).arguments).toEqual({});
    expect(toolCallOptions(undefined, { tools }).name).toBe('unnamed');
  });

  it('reads risk from annotations: read-only low, destructive high, other annotated medium', () => {
    expect(
      ['read_file', 'write_file', 'mkdir', 'plain', 'never-listed'].map((n) =>
        riskFromAnnotations(tools.annotations(n)),
      ),
    ).toEqual(['low', 'high', 'medium', undefined, undefined]);
  });
});

describe('guardErrorResult: a guard outcome as an MCP tool error the model can read', () => {
  const decision: GuardDecision = {
    evaluationId: 'e1',
    mode: 'enforce',
    policyDecision: 'block',
    effectiveDecision: 'block',
    matchedGuardrails: [
      {
        policyId: 'p1',
        name: 'No writes outside src',
        version: 2,
        decision: 'block',
        reason: 'arguments.path matches /etc/.',
      },
    ],
    wouldBlock: true,
    wouldRequireApproval: false,
    evaluatedAt: '2026-11-24T10:00:00.000Z',
  };
  const approval: Approval = {
    id: 'a1',
    status: 'denied',
    evaluationId: 'e1',
    agentId: 'ag',
    sessionId: 's',
    toolName: 'write_file',
    createdAt: '2026-11-24T10:00:00.000Z',
    expiresAt: '2026-11-24T10:05:00.000Z',
    decidedAt: '2026-11-24T10:01:00.000Z',
    decidedBy: 'user:ops@example.com',
    comment: 'not today',
    onTimeout: 'deny',
  };
  const text = (e: unknown) => guardErrorResult(e, 'write_file')!.content[0]!.text;

  it('block: isError with the policy and its reason', () => {
    const r = guardErrorResult(new GuardrailBlockedError(decision, 'tool write_file'), 'write_file');
    expect(r).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Blocked by Agent Warden: the tool "write_file" was not run. Policy "No writes outside src": arguments.path matches /etc/.',
        },
      ],
    });
  });

  it('denied, cancelled and expired approvals, and an unreachable service', () => {
    expect(text(new ApprovalDeniedError(decision, approval, 'tool write_file'))).toContain(
      'which was denied by user:ops@example.com: not today. The tool was not run.',
    );
    expect(
      text(
        new ApprovalDeniedError(
          decision,
          { ...approval, status: 'cancelled', decidedBy: null, comment: null },
          'x',
        ),
      ),
    ).toContain('which was cancelled. The tool was not run.');
    expect(text(new ApprovalTimeoutError(decision, 'a1', 1000))).toContain('none came before the deadline');
    expect(text(new GuardrailUnavailableError('tool write_file', new Error('refused')))).toContain(
      'fails closed',
    );
  });

  it('is undefined for anything else, which the proxy reports otherwise', () => {
    expect(guardErrorResult(new ConnectionError('refused'), 'write_file')).toBeUndefined();
    expect(guardErrorResult(new Error('boom'), 'write_file')).toBeUndefined();
  });
});

describe('resultText', () => {
  it('joins the text blocks, or names their absence', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: '…' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(resultText({ content: [] })).toBe('the tool reported an error without text');
  });
});

describe('defaultAgentKey', () => {
  it('is mcp-<server name> in the agent key alphabet', () => {
    expect(defaultAgentKey('secure-filesystem-server')).toBe('mcp-secure-filesystem-server');
    expect(defaultAgentKey('My Server (beta)!')).toBe('mcp-my-server-beta');
    expect(defaultAgentKey('***')).toBe('mcp-server');
    expect(defaultAgentKey('x'.repeat(300))).toHaveLength(100);
  });
});
