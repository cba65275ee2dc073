import { createHash } from 'node:crypto';
import { nameBasedUuidV7 } from '@agent-warden/contracts';

/** Name-based UUIDv7s (libs/contracts `ids.ts`): time field 2024-01-01 + position, SHA-256 of the name. */
export { NAME_BASED_ID_EPOCH_MS as REPLAY_ID_EPOCH_MS, nameBasedUuidV7 } from '@agent-warden/contracts';

/** What names one trajectory of a replay; every id of the trajectory derives from it. */
export interface TrajectoryIdentity {
  /** `--namespace` of the run (default empty): a different one replays the same file as new data. */
  namespace: string;
  /** Project of the API key: the same file replayed into two projects never shares an id. */
  projectId: string;
  /** SHA-256 (hex) of the file's bytes: a changed file is new data, a moved or copied one is not. */
  fileDigest: string;
  /** The trajectory's `trajectory_id`. */
  trajectoryId: string;
  /** Its 1-based line in the file (two lines may share a `trajectory_id`). */
  line: number;
}

/**
 * The deterministic ids of one trajectory's replay (docs/decisions.md "Replays use deterministic
 * ids"): its session, its run, each tool call by its step's position, and its events by position (the
 * n-th id the client asks for, through its `idFactory`). The client makes its events in the same
 * order on every run of the same trajectory, so a re-run sends the same event ids and the service,
 * which keeps an event id once, stores nothing twice.
 */
export class TrajectoryIds {
  private readonly scope: string;
  private position = 0;

  constructor(identity: TrajectoryIdentity) {
    const { namespace, projectId, fileDigest, trajectoryId, line } = identity;
    this.scope = createHash('sha256')
      .update(JSON.stringify([namespace, projectId, fileDigest, trajectoryId, line]))
      .digest('hex');
  }

  /** The session of the trajectory. */
  get sessionId(): string {
    return nameBasedUuidV7(`${this.scope}/session`, 0);
  }

  /** The run of the trajectory. */
  get runId(): string {
    return nameBasedUuidV7(`${this.scope}/run`, 0);
  }

  /** The tool call of the step at `stepIndex` (0-based position in `steps`). */
  toolCallId(stepIndex: number): string {
    return nameBasedUuidV7(`${this.scope}/tool/${stepIndex}`, stepIndex);
  }

  /** The next event id (positions 1, 2, …); pass as the client's `idFactory`. */
  readonly next = (): string => {
    this.position += 1;
    return nameBasedUuidV7(`${this.scope}/event/${this.position}`, this.position);
  };
}
