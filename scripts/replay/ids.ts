import { createHash } from 'node:crypto';

/**
 * Time field of every replay id: 2024-01-01T00:00:00Z plus the id's position, ms. Replay ids are
 * not made at a moment in time: the same trajectory must give the same ids on every run.
 */
export const REPLAY_ID_EPOCH_MS = Date.UTC(2024, 0, 1);

/**
 * A name-based id in the UUIDv7 layout (RFC 9562 §5.7; the event contract accepts only UUIDv7):
 * the 48-bit time field is {@link REPLAY_ID_EPOCH_MS} + `position` (so a trajectory's ids sort in
 * replay order, as the client's own ids would), the version and variant bits are set, and the 74
 * remaining bits are the first bits of SHA-256(`name`), as UUIDv5 does with SHA-1 (RFC 9562 §5.5).
 * Equal inputs give equal ids; different names collide with probability ~2⁻⁷⁴ per pair.
 * @param position 0 … 2⁴⁰ (well inside the 48-bit field)
 */
export function nameBasedUuidV7(name: string, position: number): string {
  const hash = createHash('sha256').update(name).digest();
  const b = Buffer.alloc(16);
  b.writeUIntBE(REPLAY_ID_EPOCH_MS + position, 0, 6);
  hash.copy(b, 6, 0, 10);
  b[6] = 0x70 | (b[6]! & 0x0f); // version 7
  b[8] = 0x80 | (b[8]! & 0x3f); // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

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
 * ids"): its session, its run, each tool call by step index, and its events by position (the
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

  /** The tool call of step `stepIndex`. */
  toolCallId(stepIndex: number): string {
    return nameBasedUuidV7(`${this.scope}/tool/${stepIndex}`, stepIndex);
  }

  /** The next event id (positions 1, 2, …); pass as the client's `idFactory`. */
  readonly next = (): string => {
    this.position += 1;
    return nameBasedUuidV7(`${this.scope}/event/${this.position}`, this.position);
  };
}
