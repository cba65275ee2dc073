import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressServer } from './express-server';

/** A started HTTP server and how to stop it. */
export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting connections, then closes idle keep-alive sockets; resolves when closed. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (port 0 = any free port) with {@link createExpressServer} (requests born
 * with the app's prototypes). Rejects when the port is taken.
 */
export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = createExpressServer(app);
    server.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const p = (server.address() as AddressInfo).port;
      server.keepAliveTimeout = 65_000;
      resolve({
        server,
        port: p,
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${p}`,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), 2_000).unref();
          }),
      });
    });
  });
}
