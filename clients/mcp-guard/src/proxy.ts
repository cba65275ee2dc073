import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { Logger, WardenClientOptions } from '@agent-warden/client';
import { serverEnvironment, type GuardConfig } from './config';
import { ServerFailedError } from './errors';
import { McpRelay } from './relay';
import { ToolGuard } from './tool-guard';

/** A running proxy. */
export interface RunningProxy {
  /** Resolves when the session is over and its events were sent, with the side that left first. */
  closed: Promise<'host' | 'server'>;
  /** Closes both sides as if the host had left (signals); resolves once closed. */
  stop(): Promise<void>;
}

/**
 * Starts the proxy (docs/conventions.md#start-up-and-shutdown: everything is built here,
 * explicitly): spawns the MCP server (`config.command` + `args`, environment without `WARDEN_*`,
 * its stderr on ours) as the SDK's `StdioClientTransport`, serves the host on `stdin` / `stdout`
 * as the SDK's `StdioServerTransport`, and relays between them through the guard. The end of
 * `stdin` is the host leaving (MCP stdio: the client closes the server's input to shut it down).
 * Throws {@link ServerFailedError} when the server cannot be spawned.
 */
export async function startProxy(
  config: GuardConfig,
  logger: Logger,
  io: { stdin?: Readable; stdout?: Writable; clientOptions?: Partial<WardenClientOptions> } = {},
): Promise<RunningProxy> {
  const stdin = io.stdin ?? process.stdin;
  const server = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: serverEnvironment(),
    stderr: 'inherit',
  });
  const host = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  const guard = new ToolGuard(config, logger, io.clientOptions);
  const relay = new McpRelay(host, server, guard, logger);
  try {
    await relay.start();
  } catch (e) {
    await relay.close('server');
    throw new ServerFailedError(
      `could not start the MCP server "${config.command}": ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  const hostLeft = () => void relay.close('host');
  stdin.once('end', hostLeft);
  stdin.once('close', hostLeft);
  logger.info('mcp-guard started', {
    command: config.command,
    mode: config.mode ?? 'client default',
    enabled: config.enabled,
    pid: process.pid,
  });
  return { closed: relay.closed, stop: () => relay.close('host') };
}
