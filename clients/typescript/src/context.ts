import { AsyncLocalStorage } from 'node:async_hooks';

/** Where events of the code running now belong: the session, and the run when inside `withRun`. */
export interface Scope {
  sessionId: string;
  runId?: string;
  /** Id of the run's `agent.run.started` event (parent of nested runs). */
  runStartedEventId?: string;
}

/**
 * One AsyncLocalStorage for every client in the process. Node (< 22) runs the init hook of every
 * enabled AsyncLocalStorage on each new promise, so one storage per client made each promise cost
 * O(clients) — a process that created hundreds of clients (a replay) slowed to a crawl. The shared
 * store maps each client's {@link RunStorage} to its current scope.
 */
const shared = new AsyncLocalStorage<ReadonlyMap<RunStorage, Scope>>();

/**
 * Per-client store of the current run, so that `client.withTool(...)` called anywhere inside a
 * `withRun` callback (across awaits) attaches to that run. Two clients never mix their runs.
 */
export class RunStorage {
  /** Runs `fn` with `scope` as this client's current scope (other clients' scopes are kept). */
  run<R>(scope: Scope, fn: () => R): R {
    const next = new Map(shared.getStore() ?? []);
    next.set(this, scope);
    return shared.run(next, fn);
  }

  /** This client's current scope, or undefined outside any `run`. */
  getStore(): Scope | undefined {
    return shared.getStore()?.get(this);
  }
}

/** A new, empty run store for one client. */
export function createRunStorage(): RunStorage {
  return new RunStorage();
}
