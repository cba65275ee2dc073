/** Stable codes of the proxy's own errors (the client's errors keep theirs, `@agent-warden/client`). */
export type McpGuardErrorCode = 'usage_invalid' | 'server_failed';

/** Base of the proxy's errors: a stable `code` and a message for a person. */
export class McpGuardError extends Error {
  /** Stable code (`usage_invalid`, `server_failed`). */
  readonly code: McpGuardErrorCode;
  constructor(code: McpGuardErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A bad flag or environment variable; `option` names it (`--mode`, `WARDEN_URL`, `command`). */
export class UsageError extends McpGuardError {
  /** The flag or variable at fault. */
  readonly option: string;
  constructor(option: string, message: string) {
    super('usage_invalid', `${option}: ${message}`);
    this.option = option;
  }
}

/** The MCP server could not be started, or stopped before the host disconnected. */
export class ServerFailedError extends McpGuardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('server_failed', message, options);
  }
}
