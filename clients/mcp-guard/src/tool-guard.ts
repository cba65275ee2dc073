import { WardenClient, type Logger, type WardenClientOptions } from '@agent-warden/client';
import { toolCallOptions, ToolIndex, type ServerIdentity } from './call-mapping';
import type { GuardConfig } from './config';
import { guardErrorResult, resultText, type CallToolResult } from './results';

/** A JSON-RPC error object (JSON-RPC 2.0 §5.1). */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What the server answered to a forwarded `tools/call`: a result, or a JSON-RPC error. */
export type UpstreamAnswer = { result: CallToolResult } | { error: RpcError };

/** What the host gets for a `tools/call`: a result or an error to send, or nothing (cancelled). */
export type HostAnswer = UpstreamAnswer | { cancelled: true };

/** The host's `initialize` and the server's answer, as the proxy relayed them. */
export interface McpSessionInfo {
  client?: { name?: string; version?: string };
  server?: ServerIdentity;
  protocolVersion?: string;
}

/** How long `close` waits for calls in progress before the last flush, ms. */
export const CLOSE_GRACE_MS = 2000;

/** JSON-RPC "Invalid Request" (JSON-RPC 2.0 §5.1). */
const INVALID_REQUEST = -32600;

/** JSON-RPC "Internal error" (JSON-RPC 2.0 §5.1). */
const INTERNAL_ERROR = -32603;

/** Thrown inside `withTool` for a result with `isError: true`, so the call is recorded as failed. */
class ToolResultError extends Error {
  constructor(readonly result: CallToolResult) {
    super(resultText(result));
    this.name = 'ToolError';
  }
}

/** Thrown inside `withTool` when the server answered with a JSON-RPC error. */
class UpstreamRpcError extends Error {
  constructor(readonly rpcError: RpcError) {
    super(rpcError.message);
    this.name = 'McpError';
  }
}

/** Thrown inside `withTool` when the host cancelled the request (`notifications/cancelled`). */
export class RequestCancelledError extends Error {
  constructor() {
    super('cancelled by the MCP client');
    this.name = 'RequestCancelled';
  }
}

/**
 * The Agent Warden side of the proxy: one `WardenClient` and one session per MCP session, and every
 * `tools/call` through `withTool` — guard with the arguments' provenance, approval wait, then
 * `agent.tool.started` … `completed` / `failed`, the result recorded as an untrusted source of the
 * call (clients/typescript/README.md "Monitor vs enforce", "Provenance"). The client is made when
 * the MCP session is initialized, because the default agent key comes from the server's name.
 */
export class ToolGuard {
  /** Tools as the server listed them (annotations → risk levels). */
  readonly tools = new ToolIndex();
  private client?: WardenClient;
  private session: McpSessionInfo = {};
  /** Calls in `withTool`, so that `close` lets them record their outcome before the last flush. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly config: GuardConfig,
    private readonly logger: Logger,
    private readonly clientOptions: Partial<WardenClientOptions> = {},
  ) {}

  /**
   * Called once the server answered `initialize`: makes the client (registration starts in the
   * background) and starts the session with the host's and the server's names as attributes.
   * Throws the client's `ConfigurationError` for a bad option.
   */
  startSession(info: McpSessionInfo): void {
    if (this.client) return;
    this.session = info;
    const c = this.config;
    const serverName = info.server?.name ?? 'server';
    this.client = new WardenClient({
      enabled: c.enabled,
      baseUrl: c.baseUrl,
      apiKey: c.apiKey,
      agent: {
        key: c.agentKey ?? defaultAgentKey(serverName),
        ...(c.agentName ? { name: c.agentName } : {}),
      },
      version: c.agentVersion
        ? { version: c.agentVersion }
        : { metadata: { mcpServer: serverName, mcpServerVersion: info.server?.version ?? 'unknown' } },
      mode: c.mode,
      failMode: c.failMode,
      approvalTimeoutMs: c.approvalTimeoutMs,
      flushIntervalMs: c.flushIntervalMs,
      logger: this.logger,
      ...this.clientOptions,
    });
    const sessionId = this.client.startSession({
      attributes: {
        'mcp.client.name': info.client?.name,
        'mcp.client.version': info.client?.version,
        'mcp.server.name': info.server?.name,
        'mcp.server.version': info.server?.version,
        'mcp.protocol.version': info.protocolVersion,
        'mcp.server.command': c.command,
      },
    });
    this.logger.info('mcp session started', {
      sessionId,
      mode: this.client.mode,
      agentKey: c.agentKey ?? defaultAgentKey(serverName),
      server: info.server?.name,
      client: info.client?.name,
    });
    this.client
      .ready()
      .catch((e: unknown) =>
        this.logger.error('agent warden registration failed', { error: (e as Error).message }),
      );
  }

  /** The Warden session id of this MCP session (`undefined` before `initialize`). */
  get sessionId(): string | undefined {
    return this.client?.sessionId;
  }

  /**
   * Runs one `tools/call`: `forward()` sends the request to the server and resolves with its answer;
   * it is called only when the guard lets the call run. Returns what to answer the host: the
   * server's result or error as is, a guard outcome as an `isError` tool result
   * ({@link guardErrorResult}), or `{ cancelled: true }` when `isCancelled()` turned true before the
   * call ran (MCP: no answer to a cancelled request). A call outside a session (before
   * `initialize`, or while closing) is answered with an Invalid Request error and never forwarded.
   * Never throws.
   */
  async call(
    params: unknown,
    forward: () => Promise<UpstreamAnswer>,
    isCancelled: () => boolean,
  ): Promise<HostAnswer> {
    const options = toolCallOptions(params, {
      tools: this.tools,
      server: this.session.server,
      environment: this.config.environment,
    });
    const client = this.client;
    if (!client) {
      // Before initialize (MCP forbids it) or while closing: never forwarded unguarded.
      return { error: { code: INVALID_REQUEST, message: 'mcp-guard: no MCP session (initialize first)' } };
    }
    const running = client.withTool(options, async () => {
      if (isCancelled()) throw new RequestCancelledError();
      const answer = await forward();
      if ('error' in answer) throw new UpstreamRpcError(answer.error);
      if (answer.result.isError === true) throw new ToolResultError(answer.result);
      return answer.result;
    });
    this.inflight.add(running);
    void running.catch(() => {}).finally(() => this.inflight.delete(running));
    try {
      return { result: await running };
    } catch (e) {
      if (e instanceof ToolResultError) return { result: e.result };
      if (e instanceof UpstreamRpcError) return { error: e.rpcError };
      if (e instanceof RequestCancelledError) return { cancelled: true };
      const stopped = guardErrorResult(e, options.name);
      if (stopped) {
        this.logger.info('tool call stopped', {
          tool: options.name,
          code: (e as { code?: string }).code,
          sessionId: client.sessionId,
        });
        return { result: stopped };
      }
      this.logger.error('tool call failed in the proxy', { tool: options.name, error: (e as Error).message });
      return { error: { code: INTERNAL_ERROR, message: `mcp-guard: ${(e as Error).message}` } };
    }
  }

  /**
   * Ends the session (`completed`, or `failed` when the server died) and sends what is queued,
   * after letting calls in progress record their outcome for up to {@link CLOSE_GRACE_MS} (a call
   * still waiting for an approval then goes unrecorded). Never throws.
   */
  async close(status: 'completed' | 'failed' = 'completed'): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => (timer = setTimeout(r, CLOSE_GRACE_MS))),
    ]);
    clearTimeout(timer);
    try {
      client.endSession({ status });
      const flushed = await client.shutdown();
      this.logger.info('mcp session ended', { status, sent: flushed.sent, queued: flushed.queued });
    } catch (e) {
      this.logger.error('agent warden shutdown failed', { error: (e as Error).message });
    }
  }
}

/**
 * `mcp-<server name>`, lower case, characters outside the agent key alphabet (letters, digits,
 * `. _ : / -`) replaced by `-`, at most 100 characters: e.g. `mcp-secure-filesystem-server`.
 */
export function defaultAgentKey(serverName: string): string {
  const slug = serverName
    .toLowerCase()
    .replace(/[^a-z0-9._:/-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `mcp-${slug || 'server'}`.slice(0, 100);
}
