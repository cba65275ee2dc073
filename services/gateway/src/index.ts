/** @agent-warden/gateway — the ingest gateway: identify, events, OTLP traces, guardrail evaluation, approvals. */
export { start, type RunningGateway } from './start';
export { disableAllocationSitePretenuring } from './gc-tuning';
export {
  GatewayConfig,
  RECORDER_DEFAULTS,
  ingestLimits,
  type GatewayStartConfig,
  type IngestLimits,
} from './config';
export { createGatewayApp, gatewayRoutes, jsonBody, dbKeyResolver, type GatewayDeps } from './app';
export { PolicyStore } from './guard/policy-store';
export {
  EvaluationRecorder,
  writeThroughSink,
  type EvaluationMessage,
  type EvaluationRecorderOptions,
  type EvaluationSink,
  type RecorderStats,
} from './guard/evaluation-recorder';
export { validateBatch } from './ingest/validate-batch';
export { OTLP_TRACES_PATH, tracesRouter } from './routes/traces';
export { decodeExportResponse, decodeStatus, decodeTraceRequest, type OtlpEncoding } from './otlp/proto';
