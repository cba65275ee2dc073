import type { PGlite } from '@electric-sql/pglite';

/**
 * Schedules the wire-protocol messages of all pglite-socket connections into the single PGlite
 * session, one *unit* at a time.
 *
 * pglite-socket 0.2.x's own queue interleaves connections message by message outside explicit
 * transactions. The `pg` driver sends a parameterised query as Parse/Bind/Describe/Execute/Sync,
 * so two connections querying at once clobber each other's unnamed statement ("bind message
 * supplies 2 parameters, but prepared statement "" requires 1") or receive each other's rows.
 * This queue keeps a connection as the session's owner from its first message until a unit ends:
 * a simple Query (`Q`) or a `Sync` (`S`) after which the session is outside a transaction (and
 * the start-up packet). Other connections wait, so any number of connections is safe, though
 * never parallel.
 *
 * It implements the interface pglite-socket's `PGLiteSocketHandler` calls on its queue
 * (`enqueue`, `clearQueueForHandler`, `clearTransactionIfNeeded`, `getQueueLength`).
 */
export class StatementQueue {
  private readonly queue: Array<{
    handlerId: number;
    message: Uint8Array;
    onData: (data: Uint8Array) => void;
    resolve: (bytes: number) => void;
    reject: (error: Error) => void;
  }> = [];
  private draining = false;
  /** The connection that owns the session until its current unit ends; null when free. */
  private owner: number | null = null;
  /** The connection whose message PGlite is executing right now. */
  private running: number | null = null;
  /** Connections that went away while one of their messages was executing. */
  private readonly gone = new Set<number>();

  constructor(private readonly db: PGlite) {}

  /** Queues one complete frontend message; resolves with the bytes written back once it ran. */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.drain();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** Drops (rejects) the queued messages of a connection that went away. */
  clearQueueForHandler(handlerId: number): void {
    if (this.running === handlerId) this.gone.add(handlerId);
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const item = this.queue[i]!;
      if (item.handlerId !== handlerId) continue;
      this.queue.splice(i, 1);
      item.reject(new Error('Handler disconnected'));
    }
  }

  /** Called when a connection closes: rolls back its open transaction and frees the session. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId || this.running === handlerId) return; // drain() releases it
    await this.release();
  }

  private async release(): Promise<void> {
    this.owner = null;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        const index =
          this.owner === null
            ? this.queue.length > 0
              ? 0
              : -1
            : this.queue.findIndex((q) => q.handlerId === this.owner);
        if (index < 0) return;
        const [item] = this.queue.splice(index, 1);
        if (!item) return;
        let bytes = 0;
        let failure: Error | undefined;
        this.running = item.handlerId;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          failure = error as Error;
        } finally {
          this.running = null;
        }
        if (this.gone.delete(item.handlerId)) {
          // The connection closed meanwhile: free the session (and undo its transaction).
          this.owner = null;
          if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
        } else if (failure) {
          this.owner = this.db.isInTransaction() ? item.handlerId : null;
        } else {
          this.owner = endsUnit(item.message) && !this.db.isInTransaction() ? null : item.handlerId;
        }
        if (failure) item.reject(failure);
        else item.resolve(bytes);
      }
    } finally {
      this.draining = false;
    }
  }
}

const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'

/** A simple query, a Sync, or the start-up packet (no type byte: its first length byte is 0). */
function endsUnit(message: Uint8Array): boolean {
  const type = message[0];
  return type === QUERY || type === SYNC || type === 0;
}
