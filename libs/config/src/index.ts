import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's configuration schema. */
export class ConfigError extends Error {
  readonly code = 'invalid_configuration';
  constructor(
    message: string,
    readonly issues: { variable: string; message: string }[],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Boolean environment variable: `true|1|yes|on` and `false|0|no|off` (any case); anything else is
 * an error. Use instead of comparing strings with `"true"` in code (docs/conventions.md#start-up-and-shutdown).
 */
export const BoolEnv = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  return v;
}, z.boolean());

/** Positive integer from the environment (coerced). */
export const IntEnv = z.coerce.number().int();

/** Comma-separated list, trimmed, empties dropped. */
export const ListEnv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0),
);

/**
 * Parses the environment once, at start, with a service's zod schema (docs/conventions.md#start-up-and-shutdown).
 * Empty strings count as unset. Throws {@link ConfigError} naming every offending variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    variable: i.path.map(String).join('.'),
    message: i.message,
  }));
  throw new ConfigError(
    `invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`,
    issues,
  );
}

export { LlmPricesFileEnv } from './llm-prices-file';
