/**
 * @agent-warden/mcp-guard — an MCP proxy that puts Agent Warden's telemetry, guardrails and
 * approvals in front of any MCP server (README.md). The command is `mcp-guard`; these exports let
 * a program embed it or reuse its pieces.
 */
export { main, VERSION } from './main';
export { startProxy, type RunningProxy } from './proxy';
export { startHttpProxy, MCP_PATH, type RunningHttpProxy } from './http';
export { parseInvocation, serverEnvironment, USAGE, type GuardConfig, type Invocation } from './config';
export { McpRelay, type RelayGuard } from './relay';
export {
  ToolGuard,
  defaultAgentKey,
  type HostAnswer,
  type McpSessionInfo,
  type UpstreamAnswer,
  type RpcError,
} from './tool-guard';
export {
  toolCallOptions,
  riskFromAnnotations,
  ToolIndex,
  type ToolAnnotations,
  type ServerIdentity,
} from './call-mapping';
export { guardErrorResult, resultText, type CallToolResult } from './results';
export { stderrLogger, LOG_LEVELS, type LogLevel } from './logger';
export { McpGuardError, UsageError, ServerFailedError, type McpGuardErrorCode } from './errors';
