import { AgentKey, INGEST_LIMITS, isUuidV7, newId } from '@agent-warden/contracts';
import type { CapabilityDeclaration, JsonObject, Mode } from '@agent-warden/contracts';
import { ConfigurationError } from './errors';
import { defaultLogger, safeLogger, type Logger } from './logger';

/** What to do with a guarded action when the guardrail service cannot answer. */
export type FailMode = 'open' | 'closed';

/** One capability as declared by the client (`kind` defaults to `tool`). */
export type CapabilityInput = CapabilityDeclaration['capabilities'][number];

/** The agent's stable identity within the project. */
export interface AgentIdentityOptions {
  /** Stable key, unique per project, e.g. `billing-assistant` (letters, digits, `. _ : / -`). */
  key: string;
  /** Display name. */
  name?: string;
  /** Free description. */
  description?: string;
}

/** The version of the agent that runs. */
export interface AgentVersionOptions {
  /** Version string (semver, git sha, ...). When absent the service hashes `metadata`. */
  version?: string;
  /** Free metadata: model, prompt hash, framework, ... */
  metadata?: JsonObject;
}

/**
 * Constructor options of `WardenClient`. Each option resolves as: this argument, then the
 * environment variable named in its doc, then the default.
 */
export interface WardenClientOptions {
  /** `false` gives a no-op client that sends nothing. Env `WARDEN_ENABLED`. Default `true`. */
  enabled?: boolean;
  /** Service URL, e.g. `http://127.0.0.1:7400` (`npm start`). Env `WARDEN_BASE_URL`. Required when enabled. */
  baseUrl?: string;
  /** API key with the `ingest` scope. Env `WARDEN_API_KEY`. Required when enabled. */
  apiKey?: string;
  /** Agent identity. Required when enabled. */
  agent?: AgentIdentityOptions;
  /** Agent version. Default: none (the service derives one). */
  version?: AgentVersionOptions;
  /** `monitor` (never stops an action) or `enforce`. Env `WARDEN_MODE`. Default `monitor`. */
  mode?: Mode;
  /** Capabilities declared after registration (replaces the version's set). Default: none sent. */
  capabilities?: CapabilityInput[];
  /** Interval of the background flush, ms. Env `WARDEN_FLUSH_INTERVAL_MS`. Default 2000. */
  flushIntervalMs?: number;
  /** Most events per `POST /v1/events` (1–500). Env `WARDEN_MAX_BATCH_SIZE`. Default 25. */
  maxBatchSize?: number;
  /** Most events held in memory; newer ones are dropped and counted. Env `WARDEN_MAX_QUEUE_SIZE`. Default 10000. */
  maxQueueSize?: number;
  /** Retries per request after the first attempt (0–20). Default 5. */
  maxRetries?: number;
  /** Base of the exponential backoff, ms. Default 250. */
  retryBaseDelayMs?: number;
  /** Cap of one backoff delay, ms. Default 10000. */
  retryMaxDelayMs?: number;
  /** Timeout of one HTTP attempt, ms (a long poll adds its wait). Default 10000. */
  requestTimeoutMs?: number;
  /** `open` runs the action, `closed` stops it when the guard cannot answer. Env `WARDEN_FAIL_MODE`. Default `closed` in enforce, `open` in monitor. */
  failMode?: FailMode;
  /** Client-side cap on waiting for an approval, ms. Default: the approval's `expiresAt` + 30 s. */
  approvalTimeoutMs?: number;
  /** Id (UUIDv7) of the first session. Default: a new one. */
  sessionId?: string;
  /**
   * Makes every id the client chooses: events, sessions, runs and tool calls without an explicit
   * id. Must return a new UUIDv7 on each call. Default `newId` (a random, time-ordered UUIDv7).
   * Replays pass a deterministic one, so that a re-run sends the same ids and the service keeps
   * each event once (docs/decisions.md "Replays use deterministic ids").
   */
  idFactory?: () => string;
  /**
   * The time of every event the client makes and of the durations it measures (tools, runs), as
   * epoch ms. Default: the wall clock for event times (`Date.now`) and a monotonic clock for
   * durations (`performance.now`). Replays pass one that follows the logged run, so the events
   * carry its times and a tool's `durationMs` is the clock's advance while its callback ran
   * (docs/decisions.md "Replays keep the source's timing").
   */
  clock?: () => number;
  /** Logger. Default: quiet (`warn`/`error` to `console.warn`). */
  logger?: Partial<Logger>;
  /** `fetch` implementation (tests, proxies). Default: the global `fetch` of Node 20+. */
  fetch?: typeof fetch;
  /**
   * Track where each argument of a guarded call came from and send it with the evaluation
   * (docs/provenance.md). Env `WARDEN_PROVENANCE`. Default `true`.
   */
  provenance?: boolean;
}

/** Options after resolution and validation; every field has its final value. */
export interface ResolvedOptions {
  enabled: boolean;
  baseUrl: string;
  apiKey: string;
  agent: AgentIdentityOptions;
  version?: AgentVersionOptions;
  mode: Mode;
  capabilities?: CapabilityInput[];
  flushIntervalMs: number;
  maxBatchSize: number;
  maxQueueSize: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  requestTimeoutMs: number;
  failMode: FailMode;
  approvalTimeoutMs?: number;
  sessionId?: string;
  idFactory: () => string;
  clock?: () => number;
  logger: Logger;
  fetch: typeof fetch;
  provenance: boolean;
}

/** Environment variables read by {@link resolveOptions}, by option. */
export const ENV_VARS = {
  enabled: 'WARDEN_ENABLED',
  baseUrl: 'WARDEN_BASE_URL',
  apiKey: 'WARDEN_API_KEY',
  mode: 'WARDEN_MODE',
  flushIntervalMs: 'WARDEN_FLUSH_INTERVAL_MS',
  maxBatchSize: 'WARDEN_MAX_BATCH_SIZE',
  maxQueueSize: 'WARDEN_MAX_QUEUE_SIZE',
  failMode: 'WARDEN_FAIL_MODE',
  provenance: 'WARDEN_PROVENANCE',
} as const;

/** Defaults of the numeric options. */
export const DEFAULTS = {
  flushIntervalMs: 2000,
  maxBatchSize: 25,
  maxQueueSize: 10_000,
  maxRetries: 5,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 10_000,
  requestTimeoutMs: 10_000,
} as const;

type Env = Record<string, string | undefined>;

/**
 * Resolves every option (argument, then environment variable, then default) and validates it.
 * Throws {@link ConfigurationError} naming the first bad option. `baseUrl`, `apiKey` and `agent`
 * are required only when the client is enabled.
 */
export function resolveOptions(options: WardenClientOptions, env: Env = process.env): ResolvedOptions {
  const enabled = options.enabled ?? parseBool('enabled', env[ENV_VARS.enabled]) ?? true;
  if (options.provenance !== undefined && typeof options.provenance !== 'boolean') {
    throw new ConfigurationError('provenance', 'must be a boolean');
  }
  const provenance = options.provenance ?? parseBool('provenance', env[ENV_VARS.provenance]) ?? true;
  const mode =
    oneOf('mode', options.mode ?? envString(env, 'mode'), ['monitor', 'enforce'] as const) ?? 'monitor';
  const failMode =
    oneOf('failMode', options.failMode ?? envString(env, 'failMode'), ['open', 'closed'] as const) ??
    (mode === 'enforce' ? 'closed' : 'open');

  const num = (name: keyof typeof DEFAULTS, min: number, max: number): number => {
    const fromEnv = name in ENV_VARS ? envString(env, name as keyof typeof ENV_VARS) : undefined;
    const raw = options[name] ?? (fromEnv === undefined ? undefined : parseInteger(name, fromEnv));
    return integerIn(name, raw ?? DEFAULTS[name], min, max);
  };
  const flushIntervalMs = num('flushIntervalMs', 1, 24 * 3600_000);
  const maxBatchSize = num('maxBatchSize', 1, INGEST_LIMITS.maxEventsPerBatch);
  const maxQueueSize = num('maxQueueSize', 1, 10_000_000);
  const maxRetries = num('maxRetries', 0, 20);
  const retryBaseDelayMs = num('retryBaseDelayMs', 0, 600_000);
  const retryMaxDelayMs = num('retryMaxDelayMs', 0, 3600_000);
  const requestTimeoutMs = num('requestTimeoutMs', 1, 600_000);
  if (retryMaxDelayMs < retryBaseDelayMs) {
    throw new ConfigurationError('retryMaxDelayMs', `must be ≥ retryBaseDelayMs (${retryBaseDelayMs})`);
  }
  const approvalTimeoutMs =
    options.approvalTimeoutMs === undefined
      ? undefined
      : integerIn('approvalTimeoutMs', options.approvalTimeoutMs, 1, 7 * 24 * 3600_000);

  const baseUrl = (options.baseUrl ?? envString(env, 'baseUrl') ?? '').replace(/\/+$/, '');
  const apiKey = options.apiKey ?? envString(env, 'apiKey') ?? '';
  const agent = options.agent ?? { key: '' };
  if (enabled) {
    checkUrl(baseUrl);
    if (!apiKey) throw new ConfigurationError('apiKey', `is required (or set ${ENV_VARS.apiKey})`);
    if (!AgentKey.safeParse(agent.key).success) {
      throw new ConfigurationError('agent.key', 'is required: 1–128 letters, digits and . _ : / - only');
    }
  }
  if (options.sessionId !== undefined && !isUuidV7(options.sessionId)) {
    throw new ConfigurationError('sessionId', 'must be a UUIDv7 (use newId())');
  }
  if (options.idFactory !== undefined && typeof options.idFactory !== 'function') {
    throw new ConfigurationError('idFactory', 'must be a function returning a UUIDv7');
  }
  if (options.clock !== undefined && typeof options.clock !== 'function') {
    throw new ConfigurationError('clock', 'must be a function returning epoch ms');
  }
  if (options.capabilities !== undefined && !Array.isArray(options.capabilities)) {
    throw new ConfigurationError('capabilities', 'must be an array');
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (enabled && typeof fetchImpl !== 'function') {
    throw new ConfigurationError('fetch', 'no fetch implementation (Node 20+ or pass options.fetch)');
  }

  return {
    enabled,
    baseUrl,
    apiKey,
    agent,
    version: options.version,
    mode,
    capabilities: options.capabilities,
    flushIntervalMs,
    maxBatchSize,
    maxQueueSize,
    maxRetries,
    retryBaseDelayMs,
    retryMaxDelayMs,
    requestTimeoutMs,
    failMode,
    approvalTimeoutMs,
    sessionId: options.sessionId,
    idFactory: options.idFactory ?? newId,
    clock: options.clock,
    logger: options.logger ? safeLogger(options.logger) : defaultLogger(),
    fetch: fetchImpl,
    provenance,
  };
}

function envString(env: Env, option: keyof typeof ENV_VARS): string | undefined {
  const v = env[ENV_VARS[option]]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function parseBool(option: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigurationError(option, `expected true/false, got ${JSON.stringify(raw)}`);
}

function parseInteger(option: string, raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new ConfigurationError(option, `expected an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function integerIn(option: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigurationError(option, `expected an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  return v;
}

function oneOf<T extends string>(
  option: string,
  v: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigurationError(option, `expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

function checkUrl(baseUrl: string): void {
  if (!baseUrl) throw new ConfigurationError('baseUrl', `is required (or set ${ENV_VARS.baseUrl})`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigurationError('baseUrl', `not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError('baseUrl', 'must be an http(s) URL');
  }
}
