import { attributesOf, str } from './attributes';
import { conversationIdOf, mapSpan, sessionIdOf, spanRole, spanRunId, type SpanEvent } from './map-spans';
import type { OtlpResourceSpans, OtlpSpan } from './proto';

/** The agent a resource's spans are attributed to (docs/otel.md "Agent identity"). */
export interface ResourceAgent {
  agentId: string;
  agentVersionId: string;
}

/**
 * An event of a request, with the span it came from (`<traceId>:<spanId>`) and that span's depth
 * (its ancestors among the request's spans).
 */
export type RequestEvent = SpanEvent & { readonly span: string; readonly depth: number };

/** What a whole export request became, before sequences. */
export interface MappedRequest {
  /** The events, sorted by time, then by their order within a span. */
  events: RequestEvent[];
  /** Spans that produced nothing, with the first reasons (at most 5). */
  rejectedSpans: number;
  reasons: string[];
  /** Spans mapped. */
  acceptedSpans: number;
}

const MAX_ANCESTRY = 256;

/**
 * Maps every span of an export request (docs/otel.md): a span's session is its own
 * `gen_ai.conversation.id` / `session.id`, else that of another span of the same trace in this
 * request, else its trace id; its run is the nearest ancestor in this request that is a run span
 * (an agent or chain span is its own run).
 * @param agents the agent of each resource, by index in `resources`
 */
export function mapExportRequest(resources: OtlpResourceSpans[], agents: ResourceAgent[]): MappedRequest {
  const out: MappedRequest = { events: [], rejectedSpans: 0, reasons: [], acceptedSpans: 0 };
  const all: { span: OtlpSpan; agent: ResourceAgent; attrs: ReturnType<typeof attributesOf> }[] = [];
  resources.forEach((r, i) => {
    for (const span of r.spans) all.push({ span, agent: agents[i]!, attrs: attributesOf(span.attributes) });
  });
  const bySpan = new Map<string, (typeof all)[number]>();
  const conversationOfTrace = new Map<string, string>();
  for (const s of all) {
    bySpan.set(`${s.span.traceId}:${s.span.spanId}`, s);
    const c = conversationIdOf(s.attrs);
    if (c && !conversationOfTrace.has(s.span.traceId)) conversationOfTrace.set(s.span.traceId, c);
  }
  const depthOf = (s: (typeof all)[number]): number => {
    let depth = 0;
    for (let p = bySpan.get(`${s.span.traceId}:${s.span.parentSpanId}`); p && depth < MAX_ANCESTRY; depth++)
      p = bySpan.get(`${p.span.traceId}:${p.span.parentSpanId}`);
    return depth;
  };
  const runOf = (s: (typeof all)[number]): string | undefined => {
    if (spanRole(s.attrs) === 'run') return spanRunId(s.span.traceId, s.span.spanId);
    let parent = s.span.parentSpanId;
    for (let i = 0; parent && i < MAX_ANCESTRY; i++) {
      const p = bySpan.get(`${s.span.traceId}:${parent}`);
      if (!p) return undefined;
      if (spanRole(p.attrs) === 'run') return spanRunId(p.span.traceId, p.span.spanId);
      parent = p.span.parentSpanId;
    }
    return undefined;
  };
  for (const s of all) {
    const conversation = conversationIdOf(s.attrs) ?? conversationOfTrace.get(s.span.traceId);
    const runId = runOf(s);
    const outcome = mapSpan(
      s.span,
      {
        agentId: s.agent.agentId,
        agentVersionId: s.agent.agentVersionId,
        sessionId: sessionIdOf(conversation, s.span.traceId),
        ...(runId ? { runId } : {}),
      },
      s.attrs,
    );
    if ('rejected' in outcome) {
      out.rejectedSpans += 1;
      if (out.reasons.length < 5) out.reasons.push(outcome.rejected);
    } else {
      out.acceptedSpans += 1;
      const span = `${s.span.traceId}:${s.span.spanId}`;
      const depth = depthOf(s);
      for (const e of outcome.events) out.events.push({ ...e, span, depth });
    }
  }
  sortEvents(out.events);
  return out;
}

/**
 * Sorts by instant (sub-millisecond); at the same instant a span's own events keep their order, a
 * span's start comes before its end, starts go outer span first and ends inner span first (so a
 * parent opens before and closes after children that share its instant); then by id.
 */
export function sortEvents(events: RequestEvent[]): void {
  const phase = (e: RequestEvent) => (e.order < 5 ? 0 : 1);
  events.sort((x, y) => {
    if (x.atMs !== y.atMs) return x.atMs - y.atMs;
    if (x.span === y.span) return x.order - y.order;
    if (phase(x) !== phase(y)) return phase(x) - phase(y);
    const byDepth = phase(x) === 0 ? x.depth - y.depth : y.depth - x.depth;
    return byDepth || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  });
}

/** `service.name` / `service.version` of a resource (docs/otel.md "Agent identity"). */
export function serviceOf(r: OtlpResourceSpans): { name?: string; version?: string } {
  const a = attributesOf(r.resourceAttributes);
  return { name: str(a, 'service.name'), version: str(a, 'service.version') };
}
