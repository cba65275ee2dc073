import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { KafkaBus } from '@agent-warden/bus';
import { INGEST_LIMITS, nameBasedUuidV7 } from '@agent-warden/contracts';
import { createGatewayApp, decodeExportResponse, decodeStatus, PolicyStore } from '@agent-warden/gateway';
import { listen } from '@agent-warden/http';
import { silentLogger } from '@agent-warden/observability';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * OTLP/HTTP trace ingest on the real stack (docs/otel.md): the OpenTelemetry JS SDK's own
 * exporters (`@opentelemetry/exporter-trace-otlp-proto` with gzip, `-otlp-http` for JSON) send
 * spans that follow the GenAI conventions and OpenInference to `POST /v1/traces`; the gateway maps
 * them to events, Kafka and the projector store them, and the test reads them back through the
 * read API and PostgreSQL. A retried export stores nothing twice; bad bodies get OTLP errors.
 */
/** An event as the read API returns it; `data` is asserted field by field. */
interface StoredEvent {
  type: string;
  sequence: number;
  runId?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
  data: any;
}

describe('OTLP/HTTP trace ingest', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const api = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: stack.apiKey });
  const tracesUrl = () => `${stack.gatewayUrl}/v1/traces`;

  /** A tracer whose finished spans are captured, so a test can export them (again) with a real exporter. */
  function recorder(service: Record<string, string>): { tracer: Tracer; spans: () => ReadableSpan[] } {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes(service),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    return {
      tracer: provider.getTracer('otlp-int-test', '1.0.0'),
      spans: () => memory.getFinishedSpans(),
    };
  }

  const exportWith = (exporter: SpanExporter, spans: ReadableSpan[]) =>
    new Promise<ExportResult>((resolve) =>
      exporter.export(spans, (r) => {
        if (r.error) console.error(r.error);
        resolve(r);
      }),
    );

  const child = (tracer: Tracer, parent: Span, name: string, attributes: Record<string, unknown>) =>
    tracer.startSpan(name, { attributes: attributes as never }, trace.setSpan(ROOT_CONTEXT, parent));

  /** The session's events from the read API (replay order), once `count` are stored. */
  async function sessionEvents(sessionId: string, count: number) {
    return waitFor(async () => {
      const r = await api(`/v1/sessions/${sessionId}`);
      return r.status === 200 && r.body.events.length >= count ? r.body : undefined;
    }, 60_000);
  }

  test('GenAI spans sent as gzipped protobuf become a session with a run, an LLM call, tool calls and a message; a retried export stores nothing twice', async () => {
    const conversation = `conv-${Date.now()}`;
    const { tracer, spans } = recorder({ 'service.name': 'otel-travel-agent', 'service.version': '2.0.0' });
    const agent = tracer.startSpan('invoke_agent travel', {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'travel',
        'gen_ai.conversation.id': conversation,
      },
    });
    const chat = child(tracer, agent, 'chat gpt-4o', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Book me a flight to Lisbon on Friday' }] },
      ]),
    });
    chat.end();
    const search = child(tracer, agent, 'execute_tool search_flights', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search_flights',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': JSON.stringify({ to: 'LIS', day: 'friday' }),
      'gen_ai.tool.call.result': JSON.stringify({ flights: ['TP123'] }),
    });
    search.end();
    const book = child(tracer, agent, 'execute_tool book_flight', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'book_flight',
      'error.type': 'TimeoutError',
    });
    book.setStatus({ code: SpanStatusCode.ERROR, message: 'booking service timed out' });
    book.end();
    const query = child(tracer, agent, 'SELECT seats', { 'db.system.name': 'postgresql' });
    query.end();
    agent.end();
    const finished = spans();
    expect(finished).toHaveLength(5);

    const exporter = new ProtoExporter({
      url: tracesUrl(),
      headers: { Authorization: `Bearer ${stack.apiKey}` },
      compression: 'gzip' as never,
    });
    expect((await exportWith(exporter, finished)).code).toBe(ExportResultCode.SUCCESS);

    // The session id is derived from the conversation id (docs/otel.md "Sessions, runs and ids").
    const sessionId = nameBasedUuidV7(`otlp:conversation:${conversation}`);
    // run started/completed, chat: message + llm call, two tools × 2, one custom = 9 events.
    const session = await sessionEvents(sessionId, 9);
    const events = session.events as StoredEvent[];
    expect(events.map((e) => e.type).sort()).toEqual(
      [
        'agent.custom',
        'agent.llm.called',
        'agent.message.logged',
        'agent.run.completed',
        'agent.run.started',
        'agent.tool.completed',
        'agent.tool.failed',
        'agent.tool.started',
        'agent.tool.started',
      ].sort(),
    );
    // One block of consecutive sequence numbers, in time order: the run starts first.
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events[0]!.type).toBe('agent.run.started');
    const runId = events[0]!.runId;
    expect(events.every((e) => e.runId === runId)).toBe(true);
    expect(session.runs).toEqual([
      expect.objectContaining({ id: runId, name: 'travel', status: 'succeeded' }),
    ]);

    const llm = events.find((e) => e.type === 'agent.llm.called')!.data;
    expect(llm).toMatchObject({
      operation: 'chat',
      provider: 'openai',
      model: 'gpt-4o',
      responseModel: 'gpt-4o-2024-08-06',
      inputTokens: 120,
      outputTokens: 30,
      finishReasons: ['tool_calls'],
      attributes: { 'gen_ai.request.temperature': 0.2 },
    });
    expect(llm.durationMs).toBeGreaterThanOrEqual(0);
    expect(events.find((e) => e.type === 'agent.message.logged')!.data).toEqual({
      role: 'user',
      content: 'Book me a flight to Lisbon on Friday',
    });
    const started = events.filter((e) => e.type === 'agent.tool.started').map((e) => e.data);
    expect(started).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ toolName: 'search_flights', arguments: { to: 'LIS', day: 'friday' } }),
        expect.objectContaining({ toolName: 'book_flight' }),
      ]),
    );
    const completed = events.find((e) => e.type === 'agent.tool.completed')!.data;
    expect(completed).toMatchObject({ toolName: 'search_flights', result: { flights: ['TP123'] } });
    expect(completed.toolCallId).toBe(started.find((s) => s.toolName === 'search_flights')!.toolCallId);
    expect(events.find((e) => e.type === 'agent.tool.failed')!.data).toMatchObject({
      toolName: 'book_flight',
      error: { message: 'booking service timed out', type: 'TimeoutError' },
    });
    expect(events.find((e) => e.type === 'agent.custom')!.data).toMatchObject({
      name: 'otel.span',
      data: { name: 'SELECT seats', attributes: { 'db.system.name': 'postgresql' } },
    });

    // The agent comes from the resource: service.name → key, service.version → version.
    const [agentRow] = await stack.prisma.$queryRaw<{ key: string; version: string }[]>`
      SELECT a.key, v.version FROM sessions s
      JOIN agents a ON a.project_id = s.project_id AND a.id = s.agent_id
      JOIN agent_versions v ON v.project_id = s.project_id AND v.id = s.agent_version_id
      WHERE s.project_id = ${stack.projectId}::uuid AND s.id = ${sessionId}::uuid`;
    expect(agentRow).toEqual({ key: 'otel-travel-agent', version: '2.0.0' });

    // The exporter retries the same request (as after a lost answer), then a later span of the same
    // conversation arrives; once that one is stored, the retry has been through the projector too.
    expect((await exportWith(exporter, finished)).code).toBe(ExportResultCode.SUCCESS);
    const later = recorder({ 'service.name': 'otel-travel-agent', 'service.version': '2.0.0' });
    later.tracer
      .startSpan('chat gpt-4o', {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.conversation.id': conversation,
          'gen_ai.usage.input_tokens': 7,
        },
      })
      .end();
    expect((await exportWith(exporter, later.spans())).code).toBe(ExportResultCode.SUCCESS);
    const after = await sessionEvents(sessionId, 10);
    expect(after.events).toHaveLength(10);
    // The later request's block follows the first one.
    expect(after.events.map((e: { sequence: number }) => e.sequence)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const [count] = await stack.prisma.$queryRaw<{ n: number; sequences: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT sequence)::int AS sequences FROM events
      WHERE project_id = ${stack.projectId}::uuid AND session_id = ${sessionId}::uuid`;
    expect(count).toEqual({ n: 10, sequences: 10 });
    await exporter.shutdown();
  }, 120_000);

  test('OpenInference spans sent as OTLP/JSON: chain → run, LLM with messages and token counts, tool; session.id names the session', async () => {
    const sessionKey = `oi-session-${Date.now()}`;
    const { tracer, spans } = recorder({ 'service.name': 'langchain-support-bot' });
    const chain = tracer.startSpan('RunnableSequence', {
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'session.id': sessionKey,
        'input.value': 'Where is my order 42?',
        'output.value': 'It ships tomorrow.',
      },
    });
    const llm = child(tracer, chain, 'ChatOpenAI', {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.provider': 'openai',
      'llm.token_count.prompt': 55,
      'llm.token_count.completion': 12,
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'You are a support bot.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Where is my order 42?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'It ships tomorrow.',
    });
    llm.end();
    const tool = child(tracer, chain, 'lookup_order', {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'lookup_order',
      'input.value': '{"orderId": 42}',
      'output.value': 'shipping tomorrow',
    });
    tool.end();
    chain.end();

    const exporter = new JsonExporter({
      url: tracesUrl(),
      headers: { Authorization: `Bearer ${stack.apiKey}` },
    });
    expect((await exportWith(exporter, spans())).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();

    const sessionId = nameBasedUuidV7(`otlp:conversation:${sessionKey}`);
    // run ×2, 3 messages + llm call, tool ×2 = 8 events.
    const session = await sessionEvents(sessionId, 8);
    const events = session.events as StoredEvent[];
    expect(session.runs).toEqual([
      expect.objectContaining({
        name: 'RunnableSequence',
        status: 'succeeded',
        inputSummary: 'Where is my order 42?',
      }),
    ]);
    expect(session.inputSummary).toBe('Where is my order 42?');
    expect(events.find((e) => e.type === 'agent.llm.called')!.data).toMatchObject({
      operation: 'chat',
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 55,
      outputTokens: 12,
    });
    expect(events.filter((e) => e.type === 'agent.message.logged').map((e) => e.data)).toEqual([
      { role: 'system', content: 'You are a support bot.' },
      { role: 'user', content: 'Where is my order 42?' },
      { role: 'assistant', content: 'It ships tomorrow.' },
    ]);
    expect(events.find((e) => e.type === 'agent.tool.started')!.data).toMatchObject({
      toolName: 'lookup_order',
      arguments: { orderId: 42 },
    });
    expect(events.find((e) => e.type === 'agent.tool.completed')!.data).toMatchObject({
      result: 'shipping tomorrow',
    });
  }, 120_000);

  test('a span without a conversation id falls in the session of its trace', async () => {
    const { tracer, spans } = recorder({ 'service.name': 'no-conversation-agent' });
    tracer
      .startSpan('chat claude', {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-x' },
      })
      .end();
    const [span] = spans();
    const exporter = new ProtoExporter({
      url: tracesUrl(),
      headers: { Authorization: `Bearer ${stack.apiKey}` },
    });
    expect((await exportWith(exporter, [span!])).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();
    const session = await sessionEvents(nameBasedUuidV7(`otlp:trace:${span!.spanContext().traceId}`), 1);
    expect(session.events[0]).toMatchObject({ type: 'agent.llm.called', data: { model: 'claude-x' } });
  }, 60_000);

  test('a body that is not an export request gets 400 with a google.rpc.Status in the request encoding', async () => {
    const headers = (type: string) => ({ authorization: `Bearer ${stack.apiKey}`, 'content-type': type });
    const proto = await fetch(tracesUrl(), {
      method: 'POST',
      headers: headers('application/x-protobuf'),
      body: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    });
    expect(proto.status).toBe(400);
    expect(proto.headers.get('content-type')).toMatch(/^application\/x-protobuf/);
    const status = decodeStatus(Buffer.from(await proto.arrayBuffer()));
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/not an ExportTraceServiceRequest/);

    const json = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { ...headers('application/json'), 'content-encoding': 'gzip' },
      body: gzipSync('{"resourceSpans": "nope"}'),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringMatching(/resourceSpans/) });

    const corrupt = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { ...headers('application/json'), 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toMatchObject({ code: 3 });

    // The size limit (WARDEN_MAX_BODY_BYTES, 5 MiB) holds after decompression: 6 MiB of zeros gzip to 6 KiB.
    const bomb = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { ...headers('application/x-protobuf'), 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(6 * 1024 * 1024)),
    });
    expect(bomb.status).toBe(413);
    expect(decodeStatus(Buffer.from(await bomb.arrayBuffer())).code).toBe(8);

    const other = await fetch(tracesUrl(), { method: 'POST', headers: headers('text/plain'), body: 'hello' });
    expect(other.status).toBe(415);
    const compress = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { ...headers('application/x-protobuf'), 'content-encoding': 'compress' },
      body: Buffer.from([1, 2, 3]),
    });
    expect(compress.status).toBe(415);
    expect(decodeStatus(Buffer.from(await compress.arrayBuffer())).message).toMatch(/content encoding/);

    const anonymous = await call(stack.gatewayUrl, 'POST', '/v1/traces', { body: {} });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/problem\+json/);
  }, 30_000);

  test('spans that cannot be mapped are reported as partial success; the others are stored', async () => {
    const traceId = 'ab'.repeat(16);
    const now = BigInt(Date.now()) * 1_000_000n;
    const span = (spanId: string, name: string) => ({
      traceId,
      spanId,
      name,
      kind: 1,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 5_000_000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: name } },
      ],
    });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'partial-agent' } }] },
          scopeSpans: [{ spans: [span('0102030405060708', 'good_tool'), span('', 'no_span_id')] }],
        },
      ],
    };
    const r = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringMatching(/spanId/) },
    });
    const session = await sessionEvents(nameBasedUuidV7(`otlp:trace:${traceId}`), 2);
    expect(session.events.map((e: { data: { toolName: string } }) => e.data.toolName)).toEqual([
      'good_tool',
      'good_tool',
    ]);

    // The same answer in protobuf for a protobuf request is checked by the exporter's own decoding above;
    // here: an empty protobuf request is a valid export of nothing.
    const empty = await fetch(tracesUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/x-protobuf' },
      body: Buffer.alloc(0),
    });
    expect(empty.status).toBe(200);
    expect(decodeExportResponse(Buffer.from(await empty.arrayBuffer()))).toEqual({});
  }, 60_000);

  test('with no Kafka to write to, the answer is 503 UNAVAILABLE with Retry-After, and nothing is stored', async () => {
    // A gateway of the same database whose Kafka client points at a port where no broker listens.
    const bus = new KafkaBus({
      brokers: ['127.0.0.1:9'],
      clientId: 'otlp-no-kafka',
      logger: silentLogger(),
      publishTimeoutMs: 1_000,
    });
    const app = createGatewayApp(
      {
        db: stack.prisma,
        bus,
        policies: new PolicyStore(stack.prisma, silentLogger()),
        logger: silentLogger(),
        limits: { ...INGEST_LIMITS },
        defaultApprovalTimeoutSeconds: 60,
      },
      () => true,
    );
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const { tracer, spans } = recorder({ 'service.name': 'otel-no-kafka' });
      tracer
        .startSpan('chat m', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' } })
        .end();
      const [span] = spans();
      const r = await fetch(`${server.url}/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/x-protobuf' },
        body: Buffer.from(ProtobufTraceSerializer.serializeRequest([span!])!),
      });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(decodeStatus(Buffer.from(await r.arrayBuffer())).code).toBe(14);
      const sessionId = nameBasedUuidV7(`otlp:trace:${span!.spanContext().traceId}`);
      const [row] = await stack.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM events WHERE project_id = ${stack.projectId}::uuid AND session_id = ${sessionId}::uuid`;
      expect(row!.n).toBe(0);
    } finally {
      await server.close();
      await bus.close();
    }
  }, 60_000);
});
