import type { PGlite } from '@electric-sql/pglite';
import { StatementQueue } from '../src/statement-queue';

/** A stand-in for PGlite that records the messages it runs and tracks BEGIN/COMMIT. */
function fakePGlite() {
  const ran: string[] = [];
  let inTransaction = false;
  const db = {
    runExclusive: <T>(fn: () => Promise<T>) => fn(),
    async execProtocolRawStream(message: Uint8Array, { onRawData }: { onRawData: (d: Uint8Array) => void }) {
      const text = Buffer.from(message).toString('latin1');
      ran.push(text);
      if (text.includes('BEGIN')) inTransaction = true;
      if (text.includes('COMMIT') || text.includes('ROLLBACK')) inTransaction = false;
      await new Promise((resolve) => setImmediate(resolve));
      onRawData(new Uint8Array([1]));
    },
    isInTransaction: () => inTransaction,
    async exec(sql: string) {
      ran.push(`exec ${sql}`);
      inTransaction = false;
    },
  };
  return { db: db as unknown as PGlite, ran };
}

/** Frontend message: type byte + text (the queue only looks at the type byte). */
const msg = (type: string, text = '') => new Uint8Array(Buffer.from(`${type}${text}`, 'latin1'));

describe('StatementQueue', () => {
  it('runs a Parse/Bind/Execute/Sync sequence of one connection without interleaving another', async () => {
    const { db, ran } = fakePGlite();
    const queue = new StatementQueue(db);
    const noop = () => {};
    const a = ['P', 'B', 'E', 'S'].map((t) => queue.enqueue(1, msg(t, 'a'), noop));
    const b = ['P', 'B', 'E', 'S'].map((t) => queue.enqueue(2, msg(t, 'b'), noop));
    await Promise.all([...a, ...b]);
    expect(ran).toEqual(['Pa', 'Ba', 'Ea', 'Sa', 'Pb', 'Bb', 'Eb', 'Sb']);
  });

  it('keeps a transaction together, even across Syncs, and waits for the owner', async () => {
    const { db, ran } = fakePGlite();
    const queue = new StatementQueue(db);
    const noop = () => {};
    await queue.enqueue(1, msg('Q', 'BEGIN'), noop);
    const other = queue.enqueue(2, msg('Q', 'SELECT 2'), noop);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['QBEGIN']); // connection 2 waits
    await queue.enqueue(1, msg('Q', 'SELECT 1'), noop);
    await queue.enqueue(1, msg('Q', 'COMMIT'), noop);
    await other;
    expect(ran).toEqual(['QBEGIN', 'QSELECT 1', 'QCOMMIT', 'QSELECT 2']);
  });

  it('rolls back and frees the session when the owner disconnects mid-transaction', async () => {
    const { db, ran } = fakePGlite();
    const queue = new StatementQueue(db);
    const noop = () => {};
    await queue.enqueue(1, msg('Q', 'BEGIN'), noop);
    const other = queue.enqueue(2, msg('Q', 'SELECT 2'), noop);
    queue.clearQueueForHandler(1);
    await queue.clearTransactionIfNeeded(1);
    await other;
    expect(ran).toEqual(['QBEGIN', 'exec ROLLBACK', 'QSELECT 2']);
  });

  it('rejects the queued messages of a connection that went away', async () => {
    const { db } = fakePGlite();
    const queue = new StatementQueue(db);
    const noop = () => {};
    await queue.enqueue(1, msg('Q', 'BEGIN'), noop);
    const orphan = queue.enqueue(2, msg('Q', 'SELECT 2'), noop);
    queue.clearQueueForHandler(2);
    await expect(orphan).rejects.toThrow('Handler disconnected');
    expect(queue.getQueueLength()).toBe(0);
  });
});
