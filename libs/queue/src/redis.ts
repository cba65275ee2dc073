import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@agent-warden/observability';

/**
 * Opens an ioredis connection to `url` that reconnects with a capped backoff (200 ms steps, at
 * most 2 s) and logs its errors instead of leaving them unhandled. `disconnectTimeout` is short
 * because ioredis keeps a timer that long after a disconnect while reconnecting.
 */
export function connectRedis(url: string, options: RedisOptions, logger: Logger): Redis {
  const connection = new Redis(url, {
    disconnectTimeout: 300,
    ...options,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  connection.on('error', (err) => logger.warn({ err }, 'redis connection error'));
  return connection;
}

/** Closes a connection: QUIT when it is up, else drops it at once (so no reconnect keeps the process alive). */
export async function closeRedis(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status === 'ready') {
    try {
      await connection.quit();
      return;
    } catch {
      // fall through
    }
  }
  connection.disconnect();
}
