/**
 * @agent-warden/client — TypeScript client of Agent Warden: agent telemetry (sessions, runs, tool
 * calls, actions, messages) and guardrails (monitor / enforce, human approvals).
 */
export { WardenClient } from './client';
export type {
  WardenClientOptions,
  AgentIdentityOptions,
  AgentVersionOptions,
  CapabilityInput,
  FailMode,
} from './options';
export { ENV_VARS, DEFAULTS } from './options';
export type { Logger, LogFields } from './logger';
export { silentLogger } from './logger';
export { RunContext, type RunOptions } from './runs';
export type { TrustedOptions, UntrustedOrigin, ProvenanceStats } from './provenance';
export type { ToolOptions, ToolCall, RecordToolOptions } from './tools';
export type { ActionInput, MessageInput, TrackEventOptions } from './track';
export type { ScoreInput } from './score';
export type { LlmCallInput } from './llm-call';
export type { GuardInput, GuardCheckResult, GuardOutcomeKind } from './guard';
export type { FlushResult, ClientStats } from './flusher';
export type { StartSessionOptions, EndSessionOptions, EventDataOf } from './recorder';
export {
  WardenError,
  ConfigurationError,
  AuthenticationError,
  PermissionDeniedError,
  ValidationError,
  NotFoundError,
  ApiError,
  RateLimitError,
  ServiceUnavailableError,
  ConnectionError,
  GuardrailBlockedError,
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailUnavailableError,
  type WardenErrorCode,
} from './errors';
export { newId } from '@agent-warden/contracts';
export type {
  GuardDecision,
  Approval,
  Decision,
  Mode,
  RiskLevel,
  Resource,
  EventType,
  AgentEvent,
  Provenance,
  ArgumentProvenance,
  ProvenanceSource,
  ScoreSource,
  ScoreDataType,
} from '@agent-warden/contracts';
