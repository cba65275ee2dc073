import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Creates the root structured logger of a service (pino, JSON lines on stdout). Use
 * `logger.child({ component })` per component; log a fixed message plus fields, never a message
 * built by string interpolation (docs/conventions.md#errors-and-logs).
 * @param options.name service name, written as `service` on every line
 * @param options.level pino level (`fatal`…`trace`, or `silent`); default `info`
 */
export function createLogger(options: { name: string; level?: string; pretty?: boolean }): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return pino(opts);
}

/** A logger that writes nothing (tests, libraries with no logger injected). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export * from './metrics';
