/** @agent-warden/gateway — the ingest gateway: identify, events, guardrail evaluation, approvals. */
export { start, type RunningGateway } from './start';
export { GatewayConfig, ingestLimits, type IngestLimits } from './config';
export { createGatewayApp, gatewayRoutes, jsonBody, dbKeyResolver, type GatewayDeps } from './app';
export { PolicyStore } from './guard/policy-store';
export { validateBatch } from './ingest/validate-batch';
