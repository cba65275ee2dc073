/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/**
 * Where the client writes what it notices: a fixed message plus fields (never an interpolated
 * string). Any object with these four methods fits, e.g. a pino or winston logger.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * The default logger: quiet. `debug` and `info` are dropped; `warn` and `error` go to
 * `console.warn` as `[agent-warden] <message> <fields as JSON>`.
 */
export function defaultLogger(): Logger {
  const write = (message: string, fields?: LogFields) => {
    if (fields && Object.keys(fields).length > 0) console.warn(`[agent-warden] ${message}`, safeJson(fields));
    else console.warn(`[agent-warden] ${message}`);
  };
  return { debug: () => {}, info: () => {}, warn: write, error: write };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/**
 * Wraps a user logger so that a missing method is a no-op and a throwing logger never breaks the
 * agent. Returns a complete {@link Logger}.
 */
export function safeLogger(logger: Partial<Logger>): Logger {
  const wrap =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void => {
      try {
        logger[level]?.call(logger, message, fields);
      } catch {
        // A broken logger must not break the agent.
      }
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/** Short, JSON-friendly description of an error for log fields. */
export function errorFields(e: unknown): LogFields {
  if (e instanceof Error || Object.prototype.toString.call(e) === '[object Error]') {
    const err = e as Error;
    const fields: LogFields = { error: err.message, errorType: err.name };
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') fields.errorCode = code;
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number') fields.status = status;
    return fields;
  }
  return { error: String(e) };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}
