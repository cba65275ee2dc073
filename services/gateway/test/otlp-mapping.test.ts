import { AgentEvent } from '@agent-warden/contracts';
import { mapExportRequest } from '../src/otlp/map-request';
import { spanRole } from '../src/otlp/map-spans';
import { decodeTraceRequest, OtlpDecodeError, type OtlpSpan } from '../src/otlp/proto';
import { agentKeyOf } from '../src/otlp/resource-agents';

/**
 * The OTLP mapping's pure parts (docs/otel.md): JSON shape checks, span roles, agent keys, and the
 * events of a request, each checked against the contract. The real SDKs' requests are in
 * test/otlp.int.test.ts.
 */

const agent = {
  agentId: '0190f0f0-0000-7000-8000-000000000001',
  agentVersionId: '0190f0f0-0000-7000-8000-000000000002',
};
const T0 = 1_790_000_000_000n * 1_000_000n;

function span(
  spanId: string,
  attrs: Record<string, string | number>,
  extra: Partial<OtlpSpan> = {},
): OtlpSpan {
  return {
    traceId: 'ab'.repeat(16),
    spanId,
    parentSpanId: '',
    name: `span ${spanId}`,
    kind: 1,
    startTimeUnixNano: String(T0),
    endTimeUnixNano: String(T0 + 2_000_000n),
    attributes: Object.entries(attrs).map(([key, v]) => ({
      key,
      value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v },
    })),
    status: { code: 0, message: '' },
    events: [],
    ...extra,
  };
}

describe('OTLP/JSON shape', () => {
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  test.each([
    [[], /must be an object/],
    [{ resourceSpans: {} }, /resourceSpans must be an array/],
    [{ resourceSpans: [[null]] }, /resourceSpans\.0 must be an object/],
    [{ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 5 }] }] }] }, /spans\.0\.name must be a string/],
    [{ resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: 'soon' }] }] }] }, /startTimeUnixNano/],
    [{ resourceSpans: [{ scopeSpans: [{ spans: [{ kind: 'SPAN_KIND_NOPE' }] }] }] }, /kind must be an enum/],
    [{ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'xyz' }] }] }] }, /traceId "xyz" is not hex/],
  ])('%j is refused', (body, message) => {
    expect(() => decodeTraceRequest(json(body), 'json')).toThrow(OtlpDecodeError);
    expect(() => decodeTraceRequest(json(body), 'json')).toThrow(message);
  });

  test('a valid request with 64-bit times as strings, enum names and unknown keys is read', () => {
    const [rs] = decodeTraceRequest(
      json({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: 'AB'.repeat(16),
                    spanId: '01'.repeat(8),
                    name: 'x',
                    kind: 'SPAN_KIND_CLIENT',
                    startTimeUnixNano: String(T0),
                    endTimeUnixNano: Number(T0 / 1_000_000n) * 1e6,
                    somethingNew: true,
                  },
                ],
              },
            ],
          },
        ],
      }),
      'json',
    );
    expect(rs!.spans[0]).toMatchObject({
      traceId: 'ab'.repeat(16),
      spanId: '01'.repeat(8),
      kind: 3,
      startTimeUnixNano: String(T0),
    });
  });
});

describe('span roles and agent keys', () => {
  test.each([
    [{ 'gen_ai.operation.name': 'chat' }, 'llm'],
    [{ 'gen_ai.operation.name': 'embeddings' }, 'llm'],
    [{ 'openinference.span.kind': 'LLM' }, 'llm'],
    [{ 'gen_ai.operation.name': 'execute_tool' }, 'tool'],
    [{ 'openinference.span.kind': 'RETRIEVER' }, 'tool'],
    [{ 'gen_ai.operation.name': 'invoke_agent' }, 'run'],
    [{ 'openinference.span.kind': 'chain' }, 'run'],
    [{ 'openinference.span.kind': 'GUARDRAIL' }, 'other'],
    [{ 'gen_ai.operation.name': 'speech', 'gen_ai.request.model': 'tts-1' }, 'llm'],
    [{ 'http.request.method': 'GET' }, 'other'],
  ])('%j → %s', (attrs, role) => {
    expect(spanRole(attrs)).toBe(role);
  });

  test.each([
    ['billing-assistant', 'billing-assistant'],
    ['My Agent (prod)', 'My-Agent--prod-'],
    ['  _x', 'x'],
    [undefined, 'unknown_service'],
    ['', 'unknown_service'],
    ['unknown_service:node', 'unknown_service:node'],
  ])('service.name %j → key %j', (name, key) => {
    expect(agentKeyOf(name)).toBe(key);
  });
});

describe('mapExportRequest', () => {
  test('a run, its LLM call and tool call share the run and the conversation; every event fits the contract', () => {
    const run = span('0000000000000001', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 'c1',
    });
    const chat = span(
      '0000000000000002',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 3 },
      { parentSpanId: '0000000000000001' },
    );
    const tool = span(
      '0000000000000003',
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 't',
        'gen_ai.tool.call.arguments': '[1,2]',
      },
      { parentSpanId: '0000000000000002', status: { code: 2, message: 'boom' } },
    );
    const out = mapExportRequest([{ resourceAttributes: [], spans: [tool, chat, run] }], [agent]);
    expect(out.rejectedSpans).toBe(0);
    // All three share their start and end instants: the parent opens first and closes last.
    expect(out.events.map((e) => e.type)).toEqual([
      'agent.run.started',
      'agent.tool.started',
      'agent.tool.failed',
      'agent.llm.called',
      'agent.run.completed',
    ]);
    expect(new Set(out.events.map((e) => e.sessionId)).size).toBe(1);
    expect(new Set(out.events.map((e) => e.runId)).size).toBe(1);
    for (const [i, e] of out.events.entries()) {
      const { order: _o, atMs: _a, span: _s, depth: _d, ...event } = e;
      expect(AgentEvent.safeParse({ ...event, sequence: i + 1 }).success).toBe(true);
    }
    const started = out.events.find((e) => e.type === 'agent.tool.started')!;
    expect(started.data).toMatchObject({ toolName: 't', arguments: { input: [1, 2] } });
    expect(out.events.find((e) => e.type === 'agent.tool.failed')!.data).toMatchObject({
      error: { message: 'boom' },
      durationMs: 2,
    });
    // The same spans give the same ids (a retried export).
    const again = mapExportRequest([{ resourceAttributes: [], spans: [run, chat, tool] }], [agent]);
    expect(again.events.map((e) => e.id)).toEqual(out.events.map((e) => e.id));
  });

  test("an OpenInference TOOL span's arguments are its input.value, not the tool.parameters schema", () => {
    // As openinference-instrumentation-openai-agents writes a function tool's span.
    const tool = span('0000000000000004', {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'lookup_order',
      'tool.parameters':
        '{"properties":{"order_id":{"type":"integer"}},"required":["order_id"],"type":"object"}',
      'input.value': '{"order_id":42}',
      'output.value': 'order 42 ships tomorrow',
    });
    const out = mapExportRequest([{ resourceAttributes: [], spans: [tool] }], [agent]);
    expect(out.events.map((e) => [e.type, e.data])).toEqual([
      [
        'agent.tool.started',
        expect.objectContaining({ toolName: 'lookup_order', arguments: { order_id: 42 } }),
      ],
      ['agent.tool.completed', expect.objectContaining({ result: 'order 42 ships tomorrow' })],
    ]);
  });

  test('spans without ids or start time are rejected with a reason', () => {
    const out = mapExportRequest(
      [
        {
          resourceAttributes: [],
          spans: [
            span('', {}),
            span('0000000000000000', {}),
            span('0000000000000009', {}, { startTimeUnixNano: '0' }),
            span('000000000000000a', {}),
          ],
        },
      ],
      [agent],
    );
    expect(out.rejectedSpans).toBe(3);
    expect(out.acceptedSpans).toBe(1);
    expect(out.reasons).toEqual([
      'span without a valid spanId',
      'span without a valid spanId',
      'span 0000000000000009 has no startTimeUnixNano',
    ]);
    expect(out.events).toEqual([expect.objectContaining({ type: 'agent.custom' })]);
  });
});
