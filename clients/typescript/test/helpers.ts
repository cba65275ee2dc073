import { WardenClient, type Logger, type WardenClientOptions } from '../src';
import type { FakeWarden } from './fake-warden';

export interface LogLine {
  level: keyof Logger;
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that keeps every line, for assertions. */
export function captureLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Client options for tests: fast retries, no timer flush unless asked, quiet. */
export function testOptions(
  server: FakeWarden | { url: string },
  overrides: WardenClientOptions = {},
): WardenClientOptions {
  return {
    baseUrl: server.url,
    apiKey: 'test-key',
    agent: { key: 'test-agent', name: 'Test agent' },
    version: { version: '1.0.0' },
    flushIntervalMs: 60_000,
    maxRetries: 2,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    requestTimeoutMs: 2000,
    logger: captureLogger(),
    ...overrides,
  };
}

/** Tracks clients made in a test so `afterEach` can shut them all down. */
export class Clients {
  private readonly made: WardenClient[] = [];
  make(options: WardenClientOptions): WardenClient {
    const c = new WardenClient(options);
    this.made.push(c);
    return c;
  }
  async shutdownAll(): Promise<void> {
    await Promise.all(this.made.splice(0).map((c) => c.shutdown()));
  }
}
