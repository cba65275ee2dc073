import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { silentLogger, type DbLogger } from './logger';

export { silentLogger, type DbLogger };
import { StatementQueue } from './statement-queue';

/**
 * Embedded PostgreSQL for the standalone mode (docs/architecture.md#two-ways-to-run): PGlite
 * (PostgreSQL compiled to WebAssembly, in this process) served by pglite-socket, so the `pg`
 * driver, Prisma's `@prisma/adapter-pg` and every SQL path run unchanged.
 *
 * pglite-socket has no authentication (any user name and password are accepted), so by default
 * the server listens only on a unix socket inside a fresh directory made with mode 0700 (owned by
 * this process's user): only that user can reach it (docs/decisions.md "The embedded database is
 * reached only through a private unix socket"). A TCP port is opened only when `port` or `host`
 * is given (tests, tools that need one).
 *
 * PGlite is ONE PostgreSQL session serving one statement at a time. Connections are accepted up to
 * `maxConnections`; their statements and transactions are run one after another by
 * {@link StatementQueue} (pglite-socket's own queue would interleave them and mix up results).
 * More connections therefore add no parallelism: give clients a `pg` pool of
 * {@link EMBEDDED_POOL_MAX} (= 1) connection. Session state (`SET`, advisory locks, `LISTEN`,
 * temporary tables, named prepared statements) is shared by all connections.
 */

/** The `pg` pool size clients of the embedded server should use (`new PrismaPg({ connectionString, max })`). */
export const EMBEDDED_POOL_MAX = 1;

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /**
   * Directory that holds the database files; created when missing and reused on the next
   * start (the data persists). `memory://` keeps everything in memory (tests, scratch use).
   */
  dataDir: string;
  /**
   * TCP port to listen on (0 picks a free one). Setting `port` or `host` serves on TCP instead of
   * the private unix socket: then ANY local process can connect, with any password.
   */
  port?: number;
  /** Interface to bind when serving on TCP; default `127.0.0.1` (never expose it on a network). */
  host?: string;
  /**
   * Most simultaneous client connections (default 8); one over the limit is closed at once (the
   * client sees "Connection terminated unexpectedly"). They share one session; see the module note.
   */
  maxConnections?: number;
  /** Structured logger (pino-compatible); silent by default. */
  logger?: DbLogger;
}

/** A running embedded server. */
export interface EmbeddedPostgres {
  /**
   * Connection string for `pg` / `@prisma/adapter-pg`: on the unix socket
   * `postgresql://postgres@localhost/postgres?host=<socketDir>`, on TCP
   * `postgresql://postgres@127.0.0.1:<port>/postgres`.
   */
  url: string;
  /** The TCP port bound, or the port number in the unix socket's name (`.s.PGSQL.<port>`). */
  port: number;
  /** The 0700 directory holding the unix socket; absent when serving on TCP. */
  socketDir?: string;
  /**
   * Stops accepting connections, closes open ones (an open transaction is rolled back), then
   * flushes and closes PGlite. Close your `pg` pools / Prisma clients first: their idle
   * connections are cut otherwise. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** Thrown when another live process already serves the same `dataDir`. Code `EMBEDDED_DATA_DIR_LOCKED`. */
export class EmbeddedPostgresLockedError extends Error {
  readonly code = 'EMBEDDED_DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}; stop it first (two servers on one data ` +
        `directory would corrupt it). If no such process serves it, delete ${dataDir}.lock.`,
    );
    this.name = 'EmbeddedPostgresLockedError';
  }
}

const MEMORY_PREFIX = 'memory://';
/** Port number in the unix socket's file name, as `pg` derives it (`<dir>/.s.PGSQL.<port>`). */
const SOCKET_PORT = 5432;
const DEFAULT_MAX_CONNECTIONS = 8;

/**
 * Starts PGlite on `dataDir` and serves it on a unix socket in a new 0700 directory under the
 * system's temporary directory (short, so the socket path stays under the 107-byte limit), or on
 * `host:port` when either is given. The socket directory is removed by `stop()`.
 *
 * Takes an exclusive lock file `<dataDir>.lock` (holding the pid) so that two processes never open
 * the same data directory (nor this process twice); a lock left by a process that is gone is taken over.
 *
 * @returns the connection URL and `stop()`
 * @throws {EmbeddedPostgresLockedError} when a live process holds `dataDir`
 * @throws the listen error (e.g. `EADDRINUSE`) when the port is taken; PGlite is closed again
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const logger = options.logger ?? silentLogger;
  const tcp = options.port !== undefined || options.host !== undefined;
  const host = options.host ?? '127.0.0.1';
  const inMemory = options.dataDir.startsWith(MEMORY_PREFIX);
  const dataDir = inMemory ? options.dataDir : path.resolve(options.dataDir);
  const started = Date.now();

  const releaseLock = inMemory ? () => {} : acquireDataDirLock(dataDir);
  let db: PGlite | undefined;
  let socketDir: string | undefined;
  try {
    if (!inMemory) fs.mkdirSync(dataDir, { recursive: true });
    // pg_trgm: the sessions list's text search index (prisma/migrations, docs/decisions.md).
    db = await PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm } });
    // mkdtemp makes the directory with mode 0700: only this user can reach the socket inside.
    if (!tcp) socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-pg-'));
    const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const server = socketDir
      ? new PGLiteSocketServer({ db, path: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`), maxConnections })
      : new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections });
    useStatementQueue(server, db);
    await server.start();
    const port = socketDir ? SOCKET_PORT : Number(server.getServerConn().split(':').pop());
    const url = socketDir
      ? `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`
      : `postgresql://postgres@${host}:${port}/postgres`;
    logger.info(
      {
        dataDir: inMemory ? options.dataDir : dataDir,
        ...(socketDir ? { socketDir } : { host, port }),
        ms: Date.now() - started,
      },
      'embedded postgres started',
    );

    const pglite = db;
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        try {
          await server.stop();
          await pglite.close();
          logger.info({ port }, 'embedded postgres stopped');
        } finally {
          if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
          releaseLock();
        }
      })());
    return { url, port, ...(socketDir && { socketDir }), stop };
  } catch (error) {
    await db?.close().catch(() => {});
    if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
    releaseLock();
    throw error;
  }
}

/**
 * Replaces pglite-socket's message-by-message queue with {@link StatementQueue}, which keeps each
 * connection's statement or transaction together. pglite-socket 0.2.x keeps the queue in the
 * instance field `queryQueue` and hands it to every connection handler it creates.
 */
function useStatementQueue(server: PGLiteSocketServer, db: PGlite): void {
  const internals = server as unknown as { queryQueue?: unknown };
  if (!internals.queryQueue) {
    throw new Error(
      '@electric-sql/pglite-socket changed: PGLiteSocketServer.queryQueue is gone; check libs/embedded-postgres/src/statement-queue.ts against the new version',
    );
  }
  internals.queryQueue = new StatementQueue(db);
}

/** Data directories this process serves (a lock file naming our own pid may be from a previous run with the same pid, e.g. PID 1 in a container). */
const lockedHere = new Set<string>();

/** Creates `<dataDir>.lock` exclusively (taking over a dead process's lock); returns the release function. */
function acquireDataDirLock(dataDir: string): () => void {
  if (lockedHere.has(dataDir)) throw new EmbeddedPostgresLockedError(dataDir, process.pid);
  const lockPath = `${dataDir}.lock`;
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      lockedHere.add(dataDir);
      return () => {
        lockedHere.delete(dataDir);
        fs.rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(fs.readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
        throw new EmbeddedPostgresLockedError(dataDir, pid);
      fs.rmSync(lockPath, { force: true }); // left by a process that is gone
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
