/**
 * @agent-warden/intelligence-service — the BullMQ worker that turns a ready session into a new
 * version of its runtime intelligence (docs/architecture.md#runtime-intelligence).
 */
export { start, startIntelligenceWorker, type RunningIntelligence } from './start';
export { IntelligenceConfig, WorkerEnv } from './config';
export { analyseAndStore, type AnalysisOutcome } from './analyse-session';
export { checkReadiness, type ReadinessVerdict } from './readiness';
export { processSessionReady } from './queues/session-ready.processor';
export { startWebhookWorker, type WebhookWorkerOptions } from './webhooks/worker';
