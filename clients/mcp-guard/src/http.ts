import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, WardenClientOptions } from '@agent-warden/client';
import { serverEnvironment, type GuardConfig } from './config';
import { McpRelay } from './relay';
import { ToolGuard } from './tool-guard';

/** The path the proxy serves MCP on (MCP 2025-06-18 "Streamable HTTP": one endpoint). */
export const MCP_PATH = '/mcp';

/** Most bytes of one POST body (a JSON-RPC message or batch). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A running Streamable HTTP proxy. */
export interface RunningHttpProxy {
  /** `http://<host>:<port>/mcp`. */
  url: string;
  /** Open MCP sessions. */
  sessions(): number;
  /** Stops listening and closes every session (each ends `completed`). */
  stop(): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP at `http://<httpHost>:<httpPort>/mcp` (the SDK's
 * `StreamableHTTPServerTransport`, one per MCP session, with session ids). Each session that a
 * host opens with `initialize` gets its own server process (`config.command`, over stdio), its own
 * `ToolGuard` and so its own Agent Warden session, relayed as on stdio (`McpRelay`); a DELETE, or
 * the server exiting, ends it. Requests with an unknown session id get 404, a non-initialize
 * request without one 400 (MCP 2025-06-18 "Session management"). When bound to a loopback
 * address, a `Host` header naming anything else is refused with 403 (DNS rebinding, as the
 * specification's "Security warning" asks). Progress reaches the host on its request's stream;
 * requests the server makes to the host (sampling, roots, elicitation) and its log messages go on
 * the session's GET stream.
 */
export async function startHttpProxy(
  config: GuardConfig,
  logger: Logger,
  clientOptions: Partial<WardenClientOptions> = {},
): Promise<RunningHttpProxy> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; relay: McpRelay }>();
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(config.httpHost);
  let port = 0;

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, relay });
        logger.info('mcp http session opened', { mcpSessionId: id });
      },
    });
    const server = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: serverEnvironment(),
      stderr: 'inherit',
    });
    const relay = new McpRelay(transport, server, new ToolGuard(config, logger, clientOptions), logger);
    void relay.closed.then(() => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    });
    await relay.start();
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== MCP_PATH) return reply(res, 404, 'not found: MCP is served at /mcp');
    const host = (req.headers.host ?? '').toLowerCase();
    if (loopback && ![`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host))
      return reply(res, 403, 'forbidden host');
    const sessionId = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body instanceof Error) return reply(res, 400, body.message);
    if (id) {
      const session = sessions.get(id);
      if (!session) return reply(res, 404, 'unknown MCP session');
      return session.transport.handleRequest(req, res, body);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (req.method !== 'POST' || !messages.some((m) => isInitializeRequest(m)))
      return reply(res, 400, 'no MCP session: send initialize first');
    let transport: StreamableHTTPServerTransport;
    try {
      transport = await open();
    } catch (e) {
      logger.error('mcp server could not start', { error: (e as Error).message });
      return reply(res, 502, 'the MCP server could not be started');
    }
    await transport.handleRequest(req, res, body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      logger.error('mcp http request failed', { error: (e as Error).message });
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.httpPort ?? 0, config.httpHost, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost;
  const url = `http://${shownHost}:${port}${MCP_PATH}`;
  logger.info('mcp-guard listening', { url, command: config.command, mode: config.mode ?? 'client default' });
  return {
    url,
    sessions: () => sessions.size,
    stop: async () => {
      await Promise.allSettled([...sessions.values()].map((s) => s.relay.close('host')));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON-RPC error body with no id (the message could not be matched to a request). */
function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The parsed JSON body, or an Error naming what is wrong with it (too large, not JSON). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return new Error(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return new Error('body is not JSON');
  }
}
