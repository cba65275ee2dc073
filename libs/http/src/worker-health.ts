import express from 'express';
import { healthRouter } from './health';
import { listen, type RunningServer } from './server';

/** `/health` and `/ready` of a service that serves no API (projector, intelligence worker). */
export interface HealthServer {
  /** The server's URL; undefined when it was started with port 0 (no server). */
  url?: string;
  /** Sets what `/ready` answers: 200 once true, 503 before and after (false at start). */
  setReady(ready: boolean): void;
  /** Stops the server (nothing to do without one). */
  close(): Promise<void>;
}

/**
 * Serves `/health` and `/ready` on `port` (docs/conventions.md#start-up-and-shutdown); port 0 means no
 * health server at all (tests and embedded uses). `/ready` answers 503 until `setReady(true)`.
 * Rejects when the port is taken.
 */
export async function startHealthServer(port: number): Promise<HealthServer> {
  let ready = false;
  let server: RunningServer | undefined;
  if (port !== 0) {
    const app = express();
    app.use(healthRouter(() => ready));
    server = await listen(app, port);
  }
  return {
    url: server?.url,
    setReady: (r) => {
      ready = r;
    },
    close: async () => {
      await server?.close();
    },
  };
}

/**
 * Runs `steps` (a service's shutdown, in order) and resolves when they are done or `deadlineMs`
 * (ms) has passed, whichever is first: a stuck step does not hold the process; what is left runs on
 * until the process exits. Rejects with the error of a step that fails before the deadline.
 */
export async function stopWithin(deadlineMs: number, steps: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
    timer.unref();
  });
  try {
    await Promise.race([steps(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
