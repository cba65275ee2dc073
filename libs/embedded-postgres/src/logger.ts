/**
 * The structured logger this package writes to: pino-compatible (`logger.info(fields, message)`),
 * so a pino logger or a child of one can be passed as is. Messages are fixed strings; the
 * variable parts are in `fields`.
 */
export interface DbLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that drops everything: the default when none is given. */
export const silentLogger: DbLogger = {
  info() {},
  warn() {},
  error() {},
};
