import { parseInvocation, USAGE } from './config';
import { McpGuardError } from './errors';
import { stderrLogger } from './logger';
import { startHttpProxy } from './http';
import { startProxy } from './proxy';

/** The package version, printed by `--version`. */
export const VERSION = '0.1.0';

/**
 * The command line: `mcp-guard [flags] -- <server command> [args]` (argv without `node` and the
 * script). Resolves with the exit code: 0 after the host left (or `--help` / `--version`; with
 * `--http`, after SIGINT / SIGTERM), 1 when the server could not start or exited first (stdio) or
 * the port could not be bound, 2 for bad usage (the message names the flag).
 * Everything it prints goes to stderr: stdout is the protocol.
 */
export async function main(argv: string[]): Promise<number> {
  let invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (e) {
    if (!(e instanceof McpGuardError)) throw e;
    process.stderr.write(`mcp-guard: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation.kind === 'help') {
    process.stderr.write(USAGE);
    return 0;
  }
  if (invocation.kind === 'version') {
    process.stderr.write(`${VERSION}\n`);
    return 0;
  }
  const config = invocation.config;
  const logger = stderrLogger(config.logLevel);
  if (config.httpPort !== undefined) {
    let http;
    try {
      http = await startHttpProxy(config, logger);
    } catch (e) {
      logger.error('mcp-guard could not listen', { error: (e as Error).message });
      return 1;
    }
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    logger.info('mcp-guard stopping', { signal, sessions: http.sessions() });
    await http.stop();
    return 0;
  }
  let proxy;
  try {
    proxy = await startProxy(config, logger);
  } catch (e) {
    logger.error('mcp-guard could not start', {
      error: (e as Error).message,
      code: (e as McpGuardError).code,
    });
    return 1;
  }
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info('mcp-guard stopping', { signal });
    void proxy.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const by = await proxy.closed;
  return by === 'server' ? 1 : 0;
}
