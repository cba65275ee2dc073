import { parseArgs } from 'node:util';
import { UsageError } from './errors';
import { LOG_LEVELS, type LogLevel } from './logger';

/**
 * Everything the proxy needs, from flags, then environment variables, then defaults. Options the
 * TypeScript client resolves itself from its own variables (`WARDEN_ENABLED`, `WARDEN_MODE`,
 * `WARDEN_FAIL_MODE`, `WARDEN_FLUSH_INTERVAL_MS`, `WARDEN_PROVENANCE`, …) are left `undefined`
 * here when no flag sets them, so the client's rules apply unchanged (clients/typescript/README.md
 * "Options").
 */
export interface GuardConfig {
  /** The MCP server to run: executable and its arguments (everything after `--`). */
  command: string;
  args: string[];
  /** Service URL (`--url`, `WARDEN_URL`, `WARDEN_BASE_URL`); `undefined` only when disabled. */
  baseUrl?: string;
  /** API key with the `ingest` scope (`--api-key`, `WARDEN_API_KEY`). */
  apiKey?: string;
  /** Agent key (`--agent-key`, `WARDEN_AGENT_KEY`); default `mcp-<server name>` from `initialize`. */
  agentKey?: string;
  /** Agent display name (`--agent-name`, `WARDEN_AGENT_NAME`). */
  agentName?: string;
  /** Agent version (`--agent-version`, `WARDEN_AGENT_VERSION`); default: the service hashes the server's name and version. */
  agentVersion?: string;
  /** `monitor` or `enforce` (`--mode`; else the client reads `WARDEN_MODE`, default `monitor`). */
  mode?: 'monitor' | 'enforce';
  /** `open` or `closed` (`--fail-mode`; else `WARDEN_FAIL_MODE`; default closed in enforce, open in monitor). */
  failMode?: 'open' | 'closed';
  /** Sent as `resource.environment` of every tool call (`--environment`, `WARDEN_ENVIRONMENT`). */
  environment?: string;
  /** Client-side cap on waiting for one approval, ms (`--approval-timeout-ms`); default the approval's deadline + 30 s. */
  approvalTimeoutMs?: number;
  /** Background flush period of events, ms (`--flush-interval-ms`; else `WARDEN_FLUSH_INTERVAL_MS`, default 2000). */
  flushIntervalMs?: number;
  /** `false` (`WARDEN_ENABLED=false`): a pure pass-through that sends nothing. */
  enabled: boolean;
  /** stderr log level (`--log-level`, `WARDEN_LOG_LEVEL`); default `info`. */
  logLevel: LogLevel;
  /** Serve the host over Streamable HTTP on this port (`--http`; 0 = any free port) instead of stdio. */
  httpPort?: number;
  /** Address to listen on with `--http` (`--http-host`); default `127.0.0.1`. */
  httpHost: string;
}

/** What the command line asked for: run the proxy, or print help / the version. */
export type Invocation = { kind: 'run'; config: GuardConfig } | { kind: 'help' } | { kind: 'version' };

/** Usage text printed by `--help` (on stderr: stdout belongs to the protocol). */
export const USAGE = `Usage: mcp-guard [flags] -- <command of an MCP server> [args...]

Runs the MCP server over stdio and serves it, guarded by Agent Warden, on its own stdio.

Flags (environment variable in brackets):
  --url <url>                 Agent Warden URL [WARDEN_URL or WARDEN_BASE_URL]
  --api-key <key>             API key with the ingest scope [WARDEN_API_KEY] (prefer the variable)
  --agent-key <key>           agent key [WARDEN_AGENT_KEY]; default mcp-<server name>
  --agent-name <name>         agent display name [WARDEN_AGENT_NAME]
  --agent-version <version>   agent version [WARDEN_AGENT_VERSION]
  --mode monitor|enforce      [WARDEN_MODE]; default monitor
  --fail-mode open|closed     when Agent Warden cannot answer [WARDEN_FAIL_MODE]
  --environment <name>        resource.environment of every tool call [WARDEN_ENVIRONMENT]
  --approval-timeout-ms <ms>  stop waiting for an approval after this long
  --flush-interval-ms <ms>    event flush period [WARDEN_FLUSH_INTERVAL_MS]; default 2000
  --log-level <level>         debug|info|warn|error|silent, on stderr [WARDEN_LOG_LEVEL]; default info
  --http <port>               serve the host over Streamable HTTP at http://127.0.0.1:<port>/mcp
                              instead of stdio (0: any free port; one server process per MCP session)
  --http-host <address>       address to listen on with --http; default 127.0.0.1
  -h, --help                  this text
  -v, --version               the version
`;

const FLAGS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  'agent-key': { type: 'string' },
  'agent-name': { type: 'string' },
  'agent-version': { type: 'string' },
  mode: { type: 'string' },
  'fail-mode': { type: 'string' },
  environment: { type: 'string' },
  'approval-timeout-ms': { type: 'string' },
  'flush-interval-ms': { type: 'string' },
  'log-level': { type: 'string' },
  http: { type: 'string' },
  'http-host': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Env = Record<string, string | undefined>;

/**
 * Parses `argv` (without `node` and the script) and `env`. Flags come before `--`; everything after
 * it is the server's command, passed on untouched (its own flags are never read as ours). Throws
 * {@link UsageError} naming the flag or variable at fault: an unknown flag, a bad value, no command,
 * or no URL / API key while enabled.
 */
export function parseInvocation(argv: readonly string[], env: Env = process.env): Invocation {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...own], options: FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    const flag = /'(-[^']*)'/.exec((e as Error).message)?.[1] ?? 'arguments';
    throw new UsageError(flag, `${(e as Error).message} (the server's command goes after --)`);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const str = (flag: keyof typeof FLAGS, variable?: string): string | undefined => {
    const v = values[flag] ?? (variable ? env[variable] : undefined);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const [executable, ...args] = command;
  if (!executable)
    throw new UsageError('command', 'give the MCP server to run after --, e.g. -- npx -y <server>');
  const enabled = parseEnabled(env.WARDEN_ENABLED);
  const config: GuardConfig = {
    command: executable,
    args,
    baseUrl: str('url', 'WARDEN_URL') ?? nonEmpty(env.WARDEN_BASE_URL),
    apiKey: str('api-key', 'WARDEN_API_KEY'),
    agentKey: str('agent-key', 'WARDEN_AGENT_KEY'),
    agentName: str('agent-name', 'WARDEN_AGENT_NAME'),
    agentVersion: str('agent-version', 'WARDEN_AGENT_VERSION'),
    mode: oneOf('--mode', str('mode'), ['monitor', 'enforce'] as const),
    failMode: oneOf('--fail-mode', str('fail-mode'), ['open', 'closed'] as const),
    environment: str('environment', 'WARDEN_ENVIRONMENT'),
    approvalTimeoutMs: positiveInt('--approval-timeout-ms', str('approval-timeout-ms')),
    flushIntervalMs: positiveInt('--flush-interval-ms', str('flush-interval-ms')),
    enabled,
    logLevel: oneOf('--log-level', str('log-level', 'WARDEN_LOG_LEVEL'), LOG_LEVELS) ?? 'info',
    httpPort: port('--http', str('http')),
    httpHost: str('http-host') ?? '127.0.0.1',
  };
  if (enabled && !config.baseUrl) throw new UsageError('--url', 'required: set WARDEN_URL or pass --url');
  if (enabled && !config.apiKey) throw new UsageError('--api-key', 'required: set WARDEN_API_KEY');
  if (config.baseUrl && !/^https?:\/\//.test(config.baseUrl))
    throw new UsageError('--url', 'must be an http(s) URL');
  return { kind: 'run', config };
}

/**
 * The environment the MCP server gets: the proxy's own, less every `WARDEN_*` variable (the API key
 * is not the server's business). Hosts put a server's variables in the proxy's `env`, so they reach
 * it through here.
 */
export function serverEnvironment(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith('WARDEN_')) out[k] = v;
  return out;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() !== '' ? v.trim() : undefined;
}

function oneOf<T extends string>(
  option: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(option, `must be one of ${allowed.join(', ')} (got "${value}")`);
}

function positiveInt(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return n;
  throw new UsageError(option, `must be a positive whole number of ms (got "${value}")`);
}

function port(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0 && n <= 65_535) return n;
  throw new UsageError(option, `must be a port, 0–65535 (got "${value}")`);
}

function parseEnabled(value: string | undefined): boolean {
  if (value === undefined || value.trim() === '') return true;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new UsageError('WARDEN_ENABLED', `must be true/false/1/0/yes/no (got "${value}")`);
}
