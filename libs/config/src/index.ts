import fs from 'node:fs';
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

/** The variable names a schema declares (the keys of its object, through pipes, defaults and refinements). */
function schemaKeys(schema: z.ZodType): Set<string> {
  let s: unknown = schema;
  for (let depth = 0; depth < 10 && s; depth++) {
    const o = s as {
      shape?: Record<string, unknown>;
      def?: { in?: unknown; innerType?: unknown; schema?: unknown };
    };
    if (o.shape && typeof o.shape === 'object') return new Set(Object.keys(o.shape));
    s = o.def?.in ?? o.def?.innerType ?? o.def?.schema;
  }
  return new Set();
}

/**
 * Secrets from files (the `_FILE` convention of Docker secrets and the official database images):
 * for every variable `<NAME>` the schema declares, `<NAME>_FILE` set while `<NAME>` is not makes
 * `<NAME>` the file's content without its trailing newline(s). Other `*_FILE` variables of the
 * environment are not ours and are left alone. Setting both is an error (which one wins would be a
 * guess), and so is a file that cannot be read. Returns the issues, adding the values to `cleaned`.
 */
function readSecretFiles(
  cleaned: Record<string, string>,
  declared: Set<string>,
): { variable: string; message: string }[] {
  const issues: { variable: string; message: string }[] = [];
  for (const [k, file] of Object.entries(cleaned)) {
    if (!k.endsWith('_FILE') || !declared.has(k.slice(0, -5))) continue;
    const name = k.slice(0, -5);
    if (cleaned[name] !== undefined) {
      issues.push({ variable: k, message: `set ${name} or ${k}, not both` });
      continue;
    }
    try {
      const value = fs.readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
      if (value !== '') cleaned[name] = value;
    } catch (e) {
      // The path is configuration, not a secret; the content never appears in a message.
      issues.push({
        variable: k,
        message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      });
    }
  }
  return issues;
}

/**
 * Parses the environment once, at start, with a service's zod schema (docs/conventions.md#start-up-and-shutdown).
 * Empty strings count as unset; `<NAME>_FILE` supplies `<NAME>` from a file (Docker / Kubernetes
 * secrets, see `readSecretFiles`). Throws {@link ConfigError} naming every offending variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const fileIssues = readSecretFiles(cleaned, schemaKeys(schema));
  if (fileIssues.length > 0)
    throw new ConfigError(
      `invalid configuration: ${fileIssues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`,
      fileIssues,
    );
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
