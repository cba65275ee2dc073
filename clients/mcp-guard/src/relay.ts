import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@agent-warden/client';
import type { CallToolResult } from './results';
import type { HostAnswer, McpSessionInfo, UpstreamAnswer } from './tool-guard';

/** What the relay needs from the guard (`ToolGuard`; a test double in unit tests). */
export interface RelayGuard {
  readonly tools: { addListResult(result: unknown): void };
  startSession(info: McpSessionInfo): void;
  call(
    params: unknown,
    forward: () => Promise<UpstreamAnswer>,
    isCancelled: () => boolean,
  ): Promise<HostAnswer>;
  close(status?: 'completed' | 'failed'): Promise<void>;
}

/** A `tools/call` the proxy holds: in the guard, waiting for approval, or running on the server. */
interface HeldCall {
  cancelled: boolean;
  /** Set while the request is on the server: settles it with the server's answer. */
  settle?: (answer: UpstreamAnswer) => void;
}

/** JSON-RPC "Connection closed" as the SDK numbers it (`ErrorCode.ConnectionClosed`). */
const CONNECTION_CLOSED = -32000;

/**
 * Relays JSON-RPC messages between the host (the MCP client, e.g. Claude Desktop, on the proxy's
 * own stdio) and the real server (a child process), unchanged, in both directions: requests,
 * results, errors and notifications of every method, including ones this code has never heard of
 * (initialize and its capabilities, tools/list, resources, prompts, completion, logging, sampling,
 * roots, elicitation, progress, cancellation, pings). The proxy never sends a request of its own,
 * so ids pass through unchanged and cannot collide. It steps in at four points:
 * - host `initialize` → server's result: starts the Warden session (`RelayGuard.startSession`);
 * - server's `tools/list` results: the guard reads the tools' annotations;
 * - host `tools/call`: held back and run through `RelayGuard.call` (guard, approval, telemetry),
 *   forwarded to the server only if allowed; a stopped call is answered by the proxy itself;
 * - host `notifications/cancelled` for a held call: the call never runs, or its pending answer is
 *   dropped (MCP 2025-06-18 "Cancellation": no response to a cancelled request); the notification is
 *   forwarded too.
 * Why a message relay and not the SDK's `Server` + `Client` pair:
 * docs/decisions.md "The MCP guard relays JSON-RPC messages".
 */
export class McpRelay {
  /** Ids of host requests whose answers the relay reads on the way back, by kind. */
  private readonly watching = new Map<string, { method: 'initialize' | 'tools/list'; params?: unknown }>();
  private readonly held = new Map<string, HeldCall>();
  /** Ids of calls cancelled while on the server: their late answers are dropped. */
  private readonly dropped = new Set<string>();
  /** Host requests in flight by their progress token (`_meta.progressToken`), to route progress. */
  private readonly progress = new Map<string, RequestId>();
  private closing?: Promise<void>;
  /** Resolves once both sides are closed and the guard's session has ended: with the side that left first. */
  readonly closed: Promise<'host' | 'server'>;
  private resolveClosed!: (by: 'host' | 'server') => void;

  constructor(
    private readonly host: Transport,
    private readonly server: Transport,
    private readonly guard: RelayGuard,
    private readonly logger: Logger,
  ) {
    this.closed = new Promise((r) => (this.resolveClosed = r));
  }

  /** Starts the server first (so a bad command fails before the host talks), then the host side. */
  async start(): Promise<void> {
    this.server.onmessage = (m) => this.fromServer(m);
    this.server.onerror = (e) => this.logger.warn('mcp server transport error', { error: e.message });
    this.server.onclose = () => void this.close('server');
    this.host.onmessage = (m) => this.fromHost(m);
    this.host.onerror = (e) => this.logger.warn('mcp host transport error', { error: e.message });
    this.host.onclose = () => void this.close('host');
    await this.server.start();
    await this.host.start();
  }

  /**
   * Closes both sides and ends the session: `completed` when the host left, `failed` when the
   * server died first. Held calls are answered with a "connection closed" error. Idempotent.
   */
  close(by: 'host' | 'server'): Promise<void> {
    this.closing ??= (async () => {
      // Let `closing` be set first: closing a transport calls its `onclose`, which lands here again.
      await Promise.resolve();
      this.logger.info('mcp connection closing', { by });
      for (const call of this.held.values()) {
        call.settle?.({
          error: { code: CONNECTION_CLOSED, message: 'the MCP connection closed' },
        });
      }
      await Promise.allSettled([this.server.close(), this.host.close()]);
      await this.guard.close(by === 'server' ? 'failed' : 'completed');
      this.resolveClosed(by);
    })();
    return this.closing;
  }

  private fromHost(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) {
      const token = (message.params as { _meta?: { progressToken?: RequestId } } | undefined)?._meta
        ?.progressToken;
      if (token !== undefined) this.progress.set(key(token), message.id);
      if (message.method === 'tools/call') return void this.toolCall(message.id, message);
      if (message.method === 'initialize' || message.method === 'tools/list')
        this.watching.set(key(message.id), { method: message.method, params: message.params });
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const call = id === undefined ? undefined : this.held.get(key(id));
      if (call) {
        call.cancelled = true;
        if (call.settle) {
          this.dropped.add(key(id!));
          call.settle({ error: { code: CONNECTION_CLOSED, message: 'cancelled by the MCP client' } });
        }
      }
    }
    this.send(this.server, message, 'server');
  }

  private fromServer(message: JSONRPCMessage): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id;
      if (id !== undefined) {
        for (const [token, requestId] of this.progress)
          if (key(requestId) === key(id)) this.progress.delete(token);
        if (this.dropped.delete(key(id))) return;
        const call = this.held.get(key(id));
        if (call?.settle) {
          call.settle(
            'result' in message ? { result: message.result as CallToolResult } : { error: message.error },
          );
          return;
        }
        const watched = this.watching.get(key(id));
        if (watched) {
          this.watching.delete(key(id));
          if ('result' in message) this.observe(watched, message.result);
        }
      }
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/progress') {
      // On Streamable HTTP a notification reaches the host on its request's stream only when the
      // transport is told which request it belongs to; stdio ignores the hint.
      const token = (message.params as { progressToken?: RequestId } | undefined)?.progressToken;
      const relatedRequestId = token === undefined ? undefined : this.progress.get(key(token));
      if (relatedRequestId !== undefined) return this.send(this.host, message, 'host', relatedRequestId);
    }
    this.send(this.host, message, 'host');
  }

  /** Reads an `initialize` or `tools/list` result on its way to the host. */
  private observe(watched: { method: string; params?: unknown }, result: unknown): void {
    if (watched.method === 'tools/list') return this.guard.tools.addListResult(result);
    const r = result as { serverInfo?: { name?: string; version?: string }; protocolVersion?: string };
    const p = watched.params as { clientInfo?: { name?: string; version?: string } } | undefined;
    try {
      this.guard.startSession({
        client: p?.clientInfo,
        server: r.serverInfo?.name ? { name: r.serverInfo.name, version: r.serverInfo.version } : undefined,
        protocolVersion: r.protocolVersion,
      });
    } catch (e) {
      // A bad client option (e.g. an agent key the service refuses): nothing can be guarded.
      this.logger.error('agent warden client could not start', { error: (e as Error).message });
      void this.close('server');
    }
  }

  private async toolCall(id: RequestId, request: JSONRPCMessage): Promise<void> {
    const k = key(id);
    const call: HeldCall = { cancelled: false };
    this.held.set(k, call);
    try {
      const forward = () =>
        new Promise<UpstreamAnswer>((resolve) => {
          call.settle = resolve;
          this.send(this.server, request, 'server');
        });
      const params = (request as { params?: unknown }).params;
      const answer = await this.guard.call(
        params,
        forward,
        () => call.cancelled || this.closing !== undefined,
      );
      if ('cancelled' in answer || call.cancelled) return;
      this.send(this.host, { jsonrpc: '2.0', id, ...answer } as JSONRPCMessage, 'host');
    } finally {
      this.held.delete(k);
    }
  }

  private send(
    to: Transport,
    message: JSONRPCMessage,
    side: 'host' | 'server',
    relatedRequestId?: RequestId,
  ): void {
    to.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch((e: unknown) =>
      this.logger.warn('mcp message not delivered', { to: side, error: (e as Error).message }),
    );
  }
}

/** Map key of a JSON-RPC id: `1` and `"1"` are different ids. */
function key(id: RequestId): string {
  return `${typeof id}:${String(id)}`;
}
