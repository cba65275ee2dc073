import { z } from 'zod';
import { problem } from './openapi-helpers';

/**
 * `POST /v1/traces`, OTLP/HTTP trace ingest (docs/otel.md; https://opentelemetry.io/docs/specs/otlp/#otlphttp).
 * The bodies are OTLP's own messages: only their outer shape is described here, the full schema is
 * opentelemetry-proto's `ExportTraceServiceRequest`, `ExportTraceServiceResponse` and
 * `google.rpc.Status`.
 */

/** OTLP/JSON `ExportTraceServiceRequest`, outer shape (lowerCamelCase keys, hex ids). */
export const OtlpTraceRequestJson = z
  .looseObject({
    // proto3 JSON: null is the field's default (no spans).
    resourceSpans: z.array(z.looseObject({})).nullable().optional(),
  })
  .meta({
    id: 'OtlpExportTraceServiceRequest',
    description:
      'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest in OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding)',
  });

/** OTLP/JSON `ExportTraceServiceResponse`: empty, or the partial success. */
export const OtlpTraceResponseJson = z
  .object({
    partialSuccess: z
      .object({
        rejectedSpans: z.union([z.string(), z.number().int()]).optional(),
        errorMessage: z.string().optional(),
      })
      .optional(),
  })
  .meta({ id: 'OtlpExportTraceServiceResponse' });

/** `google.rpc.Status` in JSON: a gRPC status code and a message. */
export const RpcStatusJson = z
  .object({ code: z.number().int(), message: z.string(), details: z.array(z.unknown()).optional() })
  .meta({ id: 'RpcStatus', description: 'google.rpc.Status (OTLP error body)' });

const binary = { schema: { type: 'string' as const, format: 'binary' } };

/** An OTLP error: `google.rpc.Status` as protobuf or JSON, in the request's encoding. */
const status = (description: string) => ({
  description,
  content: { 'application/x-protobuf': binary, 'application/json': { schema: RpcStatusJson } },
});

export const otlpPaths = {
  '/v1/traces': {
    post: {
      summary: 'OTLP/HTTP trace ingest: spans (OTel GenAI conventions, OpenInference) become events',
      description:
        'Binary protobuf or OTLP/JSON, optionally `Content-Encoding: gzip`; answers in the request’s encoding as OTLP/HTTP specifies. The mapping is in docs/otel.md.',
      requestBody: {
        required: true,
        content: {
          'application/x-protobuf': binary,
          'application/json': { schema: OtlpTraceRequestJson },
        },
      },
      responses: {
        '200': {
          description:
            'Stored once Kafka has the events; `partialSuccess` counts the spans that could not be mapped',
          content: {
            'application/x-protobuf': binary,
            'application/json': { schema: OtlpTraceResponseJson },
          },
        },
        '400': status('The body is not an ExportTraceServiceRequest (INVALID_ARGUMENT)'),
        '401': problem('Missing or unknown API key'),
        '403': problem('The key lacks the ingest scope'),
        '413': status('The decompressed body is larger than WARDEN_MAX_BODY_BYTES (RESOURCE_EXHAUSTED)'),
        '415': status(
          'Content-Type is neither application/x-protobuf nor application/json (then in JSON), or an unknown Content-Encoding',
        ),
        '503': {
          ...status('Kafka cannot take the write now (UNAVAILABLE); retry after Retry-After seconds'),
          headers: { 'Retry-After': { description: 'Seconds', schema: { type: 'integer' as const } } },
        },
      },
    },
  },
};
