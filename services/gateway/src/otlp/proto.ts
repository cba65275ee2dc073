import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * The OTLP trace messages, decoded and encoded with protobufjs from the official
 * opentelemetry-proto definitions (v1.11.0, vendored under `services/gateway/proto/`, Apache-2.0),
 * and `google.rpc.Status` (https://github.com/googleapis/googleapis/blob/master/google/rpc/status.proto),
 * the body of an OTLP error (https://opentelemetry.io/docs/specs/otlp/#failures-1).
 * No hand-written wire format: protobufjs reads both the binary and the JSON form.
 */

/** Directory holding the vendored `opentelemetry/proto/**.proto` files. */
const PROTO_DIR = path.resolve(__dirname, '../../proto');

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_DIR, target));
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  // google.rpc.Status, as googleapis defines it (code 1, message 2, details 3).
  root.addJSON(protobuf.common.get('google/protobuf/any.proto')!.nested!);
  root.addJSON({
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
              },
            },
          },
        },
      },
    },
  });
  root.resolveAll();
  return root;
}

const root = loadRoot();
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
const Status = root.lookupType('google.rpc.Status');

/** An OTLP `AnyValue` as decoded (exactly one of the fields set, or none). */
export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  /** int64 as a decimal string (protobufjs `longs: String`). */
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: Uint8Array;
}

/** An OTLP `KeyValue`. */
export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

/** An OTLP span, decoded; ids as lowercase hex, times as decimal strings of Unix ns. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** SpanKind enum number (0 unspecified … 5 consumer). */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  /** `code` 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  events: { name: string; timeUnixNano: string; attributes: OtlpKeyValue[] }[];
}

/** One resource and its spans (scopes flattened). */
export interface OtlpResourceSpans {
  resourceAttributes: OtlpKeyValue[];
  spans: OtlpSpan[];
}

/** The body encodings OTLP/HTTP defines (https://opentelemetry.io/docs/specs/otlp/#otlphttp). */
export type OtlpEncoding = 'protobuf' | 'json';

/** The body cannot be read as an `ExportTraceServiceRequest`; `message` says why. */
export class OtlpDecodeError extends Error {
  readonly code = 'otlp_bad_payload';
}

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: Number,
  bytes: Array,
  defaults: true,
  arrays: true,
  oneofs: false,
};

/** OTLP/JSON writes trace and span ids as hex (not base64, as plain proto3 JSON would). */
const HEX_ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

function hexIdsToBytes(v: unknown, depth = 0): unknown {
  if (depth > 64 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => hexIdsToBytes(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (HEX_ID_FIELDS.has(k) && typeof x === 'string') {
      if (!/^([0-9a-fA-F]{2})*$/.test(x)) throw new OtlpDecodeError(`${k} "${x.slice(0, 40)}" is not hex`);
      out[k] = Buffer.from(x, 'hex');
    } else out[k] = hexIdsToBytes(x, depth + 1);
  }
  return out;
}

const INT_TYPES = new Set([
  'int32',
  'uint32',
  'sint32',
  'fixed32',
  'sfixed32',
  'int64',
  'uint64',
  'sint64',
  'fixed64',
  'sfixed64',
]);
const MAX_SHAPE_DEPTH = 128;

/**
 * Checks an OTLP/JSON value against the message type's fields from the official definitions
 * before protobufjs converts it (its `fromObject` coerces silently: an array where a message
 * belongs, a number where a string belongs): messages are JSON objects, repeated fields arrays,
 * strings strings, booleans booleans, integers numbers or decimal strings, doubles numbers (or
 * "NaN" / "Infinity" / "-Infinity"), enums numbers or names, bytes strings. `null` is a field's
 * default (proto3 JSON); unknown keys are ignored, as OTLP/JSON receivers must.
 * @throws OtlpDecodeError naming the first offending path
 */
function checkJsonShape(type: protobuf.Type, value: unknown, path: string, depth = 0): void {
  if (depth > MAX_SHAPE_DEPTH) throw new OtlpDecodeError(`${path || '(root)'} is nested too deeply`);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new OtlpDecodeError(`${path || '(root)'} must be an object`);
  for (const field of type.fieldsArray) {
    const v = (value as Record<string, unknown>)[field.name];
    if (v === undefined || v === null) continue;
    const at = path ? `${path}.${field.name}` : field.name;
    if (field.repeated) {
      if (!Array.isArray(v)) throw new OtlpDecodeError(`${at} must be an array`);
      v.forEach((item, i) => checkField(field, item, `${at}.${i}`, depth));
    } else checkField(field, v, at, depth);
  }
}

function checkField(field: protobuf.Field, v: unknown, at: string, depth: number): void {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return checkJsonShape(resolved, v, at, depth + 1);
  const ok =
    resolved instanceof protobuf.Enum
      ? (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && v in resolved.values)
      : field.type === 'string' || field.type === 'bytes'
        ? typeof v === 'string'
        : field.type === 'bool'
          ? typeof v === 'boolean'
          : INT_TYPES.has(field.type)
            ? (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))
            : typeof v === 'number' || v === 'NaN' || v === 'Infinity' || v === '-Infinity';
  if (!ok)
    throw new OtlpDecodeError(
      `${at} must be ${resolved instanceof protobuf.Enum ? 'an enum value' : `a ${field.type}`}`,
    );
}

const hex = (b: unknown): string =>
  b && (b as ArrayLike<number>).length ? Buffer.from(b as number[]).toString('hex') : '';

/**
 * Decodes an `ExportTraceServiceRequest` (binary protobuf, or OTLP/JSON: lowerCamelCase keys, hex
 * ids, enums as numbers) into resources with their spans.
 * @throws OtlpDecodeError when the body is not such a message.
 */
export function decodeTraceRequest(body: Buffer, encoding: OtlpEncoding): OtlpResourceSpans[] {
  let message: protobuf.Message;
  try {
    if (encoding === 'protobuf') message = ExportRequest.decode(body);
    else {
      const json: unknown = JSON.parse(body.toString('utf8'));
      checkJsonShape(ExportRequest, json, '');
      // fromObject throws on a wrong shape (an object where an array belongs…); int64 as string or number.
      message = ExportRequest.fromObject(hexIdsToBytes(json) as Record<string, unknown>);
    }
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    throw new OtlpDecodeError((err as Error).message);
  }
  const plain = ExportRequest.toObject(message, TO_OBJECT) as {
    resourceSpans: {
      resource?: { attributes: OtlpKeyValue[] };
      scopeSpans: { spans: Record<string, unknown>[] }[];
    }[];
  };
  return plain.resourceSpans.map((rs) => ({
    resourceAttributes: rs.resource?.attributes ?? [],
    spans: rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name as string,
        kind: s.kind as number,
        startTimeUnixNano: s.startTimeUnixNano as string,
        endTimeUnixNano: s.endTimeUnixNano as string,
        attributes: s.attributes as OtlpKeyValue[],
        status: {
          code: ((s.status as { code?: number } | null)?.code ?? 0) as number,
          message: ((s.status as { message?: string } | null)?.message ?? '') as string,
        },
        events: (s.events as OtlpSpan['events']) ?? [],
      })),
    ),
  }));
}

/**
 * An `ExportTraceServiceResponse` in `encoding`: empty on full success, else with
 * `partialSuccess { rejectedSpans, errorMessage }` (https://opentelemetry.io/docs/specs/otlp/#partial-success-1).
 */
export function encodeExportResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedSpans: number; errorMessage: string },
): Buffer {
  const body = partial
    ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }
    : {};
  if (encoding === 'json') return Buffer.from(JSON.stringify(body));
  return Buffer.from(ExportResponse.encode(ExportResponse.fromObject(body)).finish());
}

/**
 * A `google.rpc.Status` in `encoding`, the body of an OTLP/HTTP error response.
 * @param code a gRPC status code (3 INVALID_ARGUMENT, 14 UNAVAILABLE…)
 */
export function encodeStatus(encoding: OtlpEncoding, code: number, message: string): Buffer {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message }));
  return Buffer.from(Status.encode(Status.fromObject({ code, message })).finish());
}

/** Decodes a `google.rpc.Status` (for tests and clients reading an error body). */
export function decodeStatus(body: Buffer): { code: number; message: string } {
  return Status.toObject(Status.decode(body), { defaults: true }) as { code: number; message: string };
}

/** Decodes an `ExportTraceServiceResponse` (for tests). */
export function decodeExportResponse(body: Buffer): {
  partialSuccess?: { rejectedSpans: string; errorMessage: string };
} {
  return ExportResponse.toObject(ExportResponse.decode(body), { longs: String }) as {
    partialSuccess?: { rejectedSpans: string; errorMessage: string };
  };
}
