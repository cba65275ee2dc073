import { AsyncLocalStorage } from 'node:async_hooks';

/** Where events of the code running now belong: the session, and the run when inside `withRun`. */
export interface Scope {
  sessionId: string;
  runId?: string;
  /** Id of the run's `agent.run.started` event (parent of nested runs). */
  runStartedEventId?: string;
}

/**
 * Per-client store of the current run, so that `client.withTool(...)` called anywhere inside a
 * `withRun` callback (across awaits) attaches to that run.
 */
export type RunStorage = AsyncLocalStorage<Scope>;

/** A new, empty run store (one per client, so two clients never mix their runs). */
export function createRunStorage(): RunStorage {
  return new AsyncLocalStorage<Scope>();
}
