import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { TOPICS, toCloudEvent, type AgentEvent } from '@agent-warden/contracts';
import { BusUnavailableError, type EventBus } from '@agent-warden/bus';
import { reserveSequenceBlocks, type PrismaClient } from '@agent-warden/db';
import { AppError, principalOf } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';
import type { AgentDirectory } from '../agent-directory';
import type { IngestLimits } from '../config';
import { validateBatch } from '../ingest/validate-batch';
import { mapExportRequest, serviceOf } from '../otlp/map-request';
import {
  decodeTraceRequest,
  encodeExportResponse,
  encodeStatus,
  OtlpDecodeError,
  type OtlpEncoding,
} from '../otlp/proto';
import { ResourceAgents } from '../otlp/resource-agents';

/** The OTLP/HTTP traces path (https://opentelemetry.io/docs/specs/otlp/#otlphttp-request). */
export const OTLP_TRACES_PATH = '/v1/traces';

/** True for a request to {@link OTLP_TRACES_PATH} (as express matches it: any case, optional trailing slash). */
export const isOtlpTracesPath = (path: string): boolean => /^\/v1\/traces\/?$/i.test(path);

const CONTENT_TYPES: Record<OtlpEncoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

/** gRPC status codes used in `google.rpc.Status` bodies (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const GRPC = { INVALID_ARGUMENT: 3, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

/** The request's OTLP encoding from its Content-Type, or undefined for anything else. */
function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

function sendStatus(
  res: Response,
  encoding: OtlpEncoding,
  http: number,
  code: number,
  message: string,
): void {
  res
    .status(http)
    .type(CONTENT_TYPES[encoding])
    .send(encodeStatus(encoding, code, message));
}

/**
 * `POST /v1/traces`: OTLP/HTTP trace ingest (docs/otel.md). Binary protobuf
 * (`application/x-protobuf`) or OTLP/JSON (`application/json`), optionally `Content-Encoding: gzip`
 * (or deflate, br), at most `limits.maxBodyBytes` after decompression; Bearer API key with the
 * `ingest` scope. Spans become events (`src/otlp/map-spans.ts`) of the agent named by the
 * resource's `service.name` / `service.version`, with ids derived from trace and span ids and
 * sequence numbers reserved per session (docs/decisions.md "OTLP spans get deterministic ids and
 * per-session sequence blocks"); they go to `agent-events` like `POST /v1/events` and the answer
 * comes once Kafka has them. Answers, as OTLP/HTTP specifies
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp-response), in the request's encoding:
 * - 200 `ExportTraceServiceResponse`, with `partialSuccess { rejectedSpans, errorMessage }` when
 *   some spans could not be mapped (no valid ids or start time, an event the contract refuses);
 * - 400 `google.rpc.Status` (INVALID_ARGUMENT) for a body that is not an export request, 413
 *   (RESOURCE_EXHAUSTED) past the size limit, 415 (JSON Status) for another Content-Type;
 * - 503 `google.rpc.Status` (UNAVAILABLE) with `Retry-After: 1` when Kafka cannot take the write.
 * Authentication failures are problem+json 401/403 like every other route.
 */
export function tracesRouter(deps: {
  auth: RequestHandler;
  bus: EventBus;
  db: PrismaClient;
  agents: AgentDirectory;
  limits: IngestLimits;
  logger?: Logger;
}): Router {
  const resources = new ResourceAgents(deps.db, deps.agents);
  const r = Router();
  const rawBody = express.raw({ type: () => true, limit: deps.limits.maxBodyBytes, inflate: true });

  const negotiate: RequestHandler = (req, res, next) => {
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding) {
      sendStatus(
        res,
        'json',
        415,
        GRPC.INVALID_ARGUMENT,
        'Content-Type must be application/x-protobuf or application/json',
      );
      return;
    }
    res.locals.otlpEncoding = encoding;
    next();
  };

  r.post(OTLP_TRACES_PATH, deps.auth, negotiate, rawBody, async (req, res, next) => {
    const encoding = res.locals.otlpEncoding as OtlpEncoding;
    try {
      const { projectId } = principalOf(req);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      let decoded;
      try {
        decoded = decodeTraceRequest(body, encoding);
      } catch (err) {
        if (!(err instanceof OtlpDecodeError)) throw err;
        sendStatus(
          res,
          encoding,
          400,
          GRPC.INVALID_ARGUMENT,
          `not an ExportTraceServiceRequest: ${err.message}`,
        );
        return;
      }
      const withSpans = decoded.filter((rs) => rs.spans.length > 0);
      const agents = [];
      for (const rs of withSpans) agents.push(await resources.resolve(projectId, serviceOf(rs)));
      const mapped = mapExportRequest(withSpans, agents);

      // Every event is checked against the contract; a span with one refused event is refused whole.
      const { valid, rejected } = validateBatch(
        mapped.events.map(({ order: _o, atMs: _a, span: _s, depth: _d, ...e }) => ({ ...e, sequence: 1 })),
        deps.limits.maxEventBytes,
      );
      const refusedSpans = new Set<string>();
      for (const x of rejected) {
        const span = mapped.events[x.index]!.span;
        if (!refusedSpans.has(span) && mapped.reasons.length < 5)
          mapped.reasons.push(
            `span ${span.split(':')[1]}: ${x.errors?.[0]?.path ?? x.code} ${x.errors?.[0]?.message ?? x.message}`,
          );
        refusedSpans.add(span);
      }
      const kept = valid.filter((v) => !refusedSpans.has(mapped.events[v.index]!.span)).map((v) => v.event);
      const rejectedSpans = mapped.rejectedSpans + refusedSpans.size;

      if (kept.length > 0) {
        await deps.bus.publish(
          TOPICS.agentEvents,
          (await withSequences(deps.db, projectId, kept)).map((e) => ({
            key: e.sessionId,
            value: toCloudEvent(projectId, e),
          })),
        );
      }
      deps.logger?.debug(
        { spans: mapped.acceptedSpans + mapped.rejectedSpans, rejectedSpans, events: kept.length },
        'otlp traces ingested',
      );
      res
        .status(200)
        .type(CONTENT_TYPES[encoding])
        .send(
          encodeExportResponse(
            encoding,
            rejectedSpans > 0
              ? {
                  rejectedSpans,
                  errorMessage: `${rejectedSpans} span(s) rejected: ${mapped.reasons.join('; ')}`,
                }
              : undefined,
          ),
        );
    } catch (err) {
      if (err instanceof BusUnavailableError) {
        res.setHeader('Retry-After', '1');
        sendStatus(res, encoding, 503, GRPC.UNAVAILABLE, 'the event log cannot take the write now; retry');
        return;
      }
      next(err);
    }
  });

  // Body errors (size, compression) in the OTLP form; anything else (auth, internal) goes on as a problem.
  const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
    const e = err as { type?: unknown; status?: unknown; message?: string; limit?: number };
    // body-parser's errors carry an HTTP `status` (a corrupt gzip stream: 400 with zlib's message).
    if (
      !isOtlpTracesPath(req.path) ||
      err instanceof AppError ||
      typeof e.status !== 'number' ||
      e.status >= 500
    )
      return next(err);
    const encoding = (res.locals.otlpEncoding as OtlpEncoding | undefined) ?? 'json';
    if (e.type === 'entity.too.large')
      return sendStatus(
        res,
        encoding,
        413,
        GRPC.RESOURCE_EXHAUSTED,
        `request body exceeds the limit of ${e.limit} bytes`,
      );
    sendStatus(
      res,
      encoding,
      e.status >= 400 && e.status < 500 ? e.status : 400,
      GRPC.INVALID_ARGUMENT,
      e.message ?? 'unreadable body',
    );
  };
  r.use(bodyErrors);
  return r;
}

/**
 * The events with their `sequence`: per session, one block of consecutive numbers for this
 * request's events (in time order), keyed by the id of its first event (`reserveSequenceBlocks`).
 */
async function withSequences(
  db: PrismaClient,
  projectId: string,
  events: AgentEvent[],
): Promise<AgentEvent[]> {
  const bySession = new Map<string, AgentEvent[]>();
  for (const e of events) {
    const list = bySession.get(e.sessionId);
    if (list) list.push(e);
    else bySession.set(e.sessionId, [e]);
  }
  const firsts = await reserveSequenceBlocks(
    db,
    projectId,
    [...bySession].map(([sessionId, list]) => ({ sessionId, blockKey: list[0]!.id, size: list.length })),
  );
  return [...bySession.values()].flatMap((list) => {
    const first = firsts.get(list[0]!.id)!;
    return list.map((e, i) => ({ ...e, sequence: first + i }));
  });
}
