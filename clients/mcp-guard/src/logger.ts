import type { LogFields, Logger } from '@agent-warden/client';

/** Log levels, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** One of {@link LOG_LEVELS}; `silent` writes nothing. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A JSON-lines logger on **stderr** (`{"level","time","component":"mcp-guard","msg",…fields}` per
 * line): stdout carries the MCP protocol and nothing else (MCP stdio transport: "The server MUST NOT
 * write anything to its stdout that is not a valid MCP message"). Hosts such as Claude Desktop keep
 * a server's stderr in their logs. Lines below `level` are dropped; a field that cannot be written
 * as JSON is replaced by its string form. Messages are fixed strings; fields never hold the API key
 * (docs/conventions.md "Errors and logs").
 */
export function stderrLogger(level: LogLevel, write: (line: string) => void = defaultWrite): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields?: LogFields): void => {
      if (LOG_LEVELS.indexOf(name) < threshold) return;
      const line = { level: name, time: new Date().toISOString(), component: 'mcp-guard', msg, ...fields };
      let text: string;
      try {
        text = JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      } catch {
        text = JSON.stringify({ level: name, time: line.time, component: 'mcp-guard', msg });
      }
      write(text + '\n');
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function defaultWrite(line: string): void {
  process.stderr.write(line);
}
