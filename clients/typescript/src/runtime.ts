import type { Scope, RunStorage } from './context';
import type { ClientStats, FlushResult } from './flusher';
import type { Guard } from './guard';
import type { Logger } from './logger';
import type { ResolvedOptions } from './options';
import type { ProvenanceTracker } from './provenance';
import type { EventRecorder } from './recorder';
import type { IdentitySource } from './registration';

/**
 * Everything the public operations need, wired once by the client: the live wiring sends to the
 * service, the disabled one (`noop.ts`) sends nothing. Internal.
 */
export interface Runtime {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly recorder: EventRecorder;
  readonly guard: Guard;
  readonly identity: IdentitySource;
  readonly storage: RunStorage;
  /** Where arguments came from (docs/provenance.md); a tracker that keeps nothing when off. */
  readonly provenance: ProvenanceTracker;
  /** Sends what is queued; never rejects. */
  flush(): Promise<FlushResult>;
  /** Stops the timer and sends the rest; never rejects. */
  shutdown(): Promise<FlushResult>;
  stats(): ClientStats;
}

/** The scope of the code running now: the current run, else the client's current session. */
export function currentScope(rt: Runtime): Scope {
  return rt.storage.getStore() ?? { sessionId: rt.recorder.sessionId };
}
