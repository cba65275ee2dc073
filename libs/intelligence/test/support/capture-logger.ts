import pino from 'pino';

/** A pino logger (level debug) whose JSON lines are kept in `lines`, for tests that check what was logged. */
export function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}
