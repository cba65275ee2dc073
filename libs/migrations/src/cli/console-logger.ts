import type { DbLogger } from '@agent-warden/embedded-postgres';

/** A {@link DbLogger} for command-line tools: one line per entry on stderr, `level message {fields}`. */
export function consoleLogger(): DbLogger {
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    const extra =
      Object.keys(fields).length > 0
        ? ` ${JSON.stringify(fields, (_key, value) => (value instanceof Error ? value.message : value))}`
        : '';
    process.stderr.write(`${level} ${message}${extra}\n`);
  };
  return { info: write('info '), warn: write('warn '), error: write('error') };
}
