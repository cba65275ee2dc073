import { ConfigError, parseEnv } from '@agent-warden/config';
import { z } from 'zod';

/** Default model when `WARDEN_LLM_MODEL` is unset. */
export const DEFAULT_NARRATIVE_MODEL = 'gpt-4o-mini';
/** Default whole-call deadline of one narrative, ms (`WARDEN_LLM_TIMEOUT_MS`). */
export const DEFAULT_NARRATIVE_TIMEOUT_MS = 30_000;
/** Default number of SDK retries on 408/429/5xx/network errors, within the deadline (`WARDEN_LLM_MAX_RETRIES`). */
export const DEFAULT_NARRATIVE_MAX_RETRIES = 1;
/** Default cap of the facts sent to the model, characters of JSON (`WARDEN_LLM_MAX_FACTS_CHARS`). */
export const DEFAULT_MAX_FACTS_CHARS = 16_000;

/**
 * Configuration of the LLM narrative. The narrative is on only when `apiKey` or `baseUrl` is set
 * (docs/architecture.md#runtime-intelligence: an OpenAI-compatible endpoint is optional).
 */
export interface NarratorConfig {
  /** Bearer key of the endpoint (`OPENAI_API_KEY`). Optional for local endpoints that need none. */
  apiKey?: string;
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1` (`OPENAI_BASE_URL`); default OpenAI's. */
  baseUrl?: string;
  /** Chat model name (`WARDEN_LLM_MODEL`); written into `generator` as `llm:<model>`. */
  model: string;
  /** Deadline of one narrative call including retries, ms (`WARDEN_LLM_TIMEOUT_MS`); default 30000. */
  timeoutMs?: number;
  /** SDK retries on 408/429/5xx/network errors, within `timeoutMs` (`WARDEN_LLM_MAX_RETRIES`); default 1. */
  maxRetries?: number;
  /** Cap of the facts JSON sent to the model, characters (`WARDEN_LLM_MAX_FACTS_CHARS`); default 16000. */
  maxFactsChars?: number;
}

/**
 * Thrown by {@link narratorConfigFromEnv} when a variable is set to an invalid value: the
 * configuration error of every service (`ConfigError` of `@agent-warden/config`, code
 * `invalid_configuration`, `issues` naming each variable), under the name this package exported
 * before.
 */
export const NarratorConfigError = ConfigError;
export type NarratorConfigError = ConfigError;

/** A value trimmed, and unset when only whitespace (as `parseEnv` treats empty strings). */
const trimmed = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), schema);

/** The environment variables of the narrative, parsed once at start. Empty strings count as unset. */
const NarratorEnv = z.object({
  OPENAI_API_KEY: trimmed(z.string().optional()),
  OPENAI_BASE_URL: trimmed(z.url().optional()),
  WARDEN_LLM_MODEL: trimmed(z.string().default(DEFAULT_NARRATIVE_MODEL)),
  WARDEN_LLM_TIMEOUT_MS: trimmed(z.coerce.number().int().positive().default(DEFAULT_NARRATIVE_TIMEOUT_MS)),
  WARDEN_LLM_MAX_RETRIES: trimmed(
    z.coerce.number().int().min(0).max(10).default(DEFAULT_NARRATIVE_MAX_RETRIES),
  ),
  WARDEN_LLM_MAX_FACTS_CHARS: trimmed(z.coerce.number().int().min(1000).default(DEFAULT_MAX_FACTS_CHARS)),
});

/**
 * Reads the narrative's configuration from the environment: `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
 * `WARDEN_LLM_MODEL` (default `gpt-4o-mini`), `WARDEN_LLM_TIMEOUT_MS` (default 30000),
 * `WARDEN_LLM_MAX_RETRIES` (default 1), `WARDEN_LLM_MAX_FACTS_CHARS` (default 16000). Pass the result
 * to `createNarrator`, which returns null when neither the key nor the base URL is set.
 * Parsed by `parseEnv` of `@agent-warden/config`, as every service's configuration.
 * @throws NarratorConfigError (= `ConfigError`) naming every variable with an invalid value
 */
export function narratorConfigFromEnv(env: NodeJS.ProcessEnv = process.env): NarratorConfig {
  const e = parseEnv(NarratorEnv, env);
  return {
    ...(e.OPENAI_API_KEY !== undefined ? { apiKey: e.OPENAI_API_KEY } : {}),
    ...(e.OPENAI_BASE_URL !== undefined ? { baseUrl: e.OPENAI_BASE_URL } : {}),
    model: e.WARDEN_LLM_MODEL,
    timeoutMs: e.WARDEN_LLM_TIMEOUT_MS,
    maxRetries: e.WARDEN_LLM_MAX_RETRIES,
    maxFactsChars: e.WARDEN_LLM_MAX_FACTS_CHARS,
  };
}
