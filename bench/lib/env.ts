import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Admin } from '@platformatic/kafka';
import { Client } from 'pg';

/** Repository root. */
export const ROOT = path.resolve(__dirname, '../..');

/**
 * Installed version of `pkg` as the repository root resolves it ('unknown' when it is not): the
 * package.json above its entry, since some packages (`@platformatic/kafka`) export only the entry.
 */
export function packageVersion(pkg: string): string {
  try {
    const entry = createRequire(path.join(ROOT, 'package.json')).resolve(pkg);
    for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const meta = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
      if (meta.name === pkg) return meta.version;
    }
  } catch {
    // not installed
  }
  return 'unknown';
}

/** The real services a benchmark runs against. */
export interface BenchEnv {
  databaseUrl: string;
  kafkaBrokers: string[];
}

const HOW_TO =
  'Start the services and source their environment first:\n' +
  '  bash infra/services.sh up   # once; PostgreSQL, Kafka and Redis on loopback\n' +
  '  source .infra/env && npm run bench:ingest';

/**
 * Reads `DATABASE_URL` and `KAFKA_BROKERS` and checks that both servers answer within a few
 * seconds. Throws an error that says what is missing and how to fix it.
 */
export async function requireBenchEnv(): Promise<BenchEnv> {
  const missing = ['DATABASE_URL', 'KAFKA_BROKERS'].filter((v) => !process.env[v]);
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} not set.\n${HOW_TO}`);
  const env: BenchEnv = {
    databaseUrl: process.env.DATABASE_URL!,
    kafkaBrokers: process.env
      .KAFKA_BROKERS!.split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  };
  const pg = new Client({ connectionString: env.databaseUrl, connectionTimeoutMillis: 3_000 });
  try {
    await pg.connect();
    await pg.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL at DATABASE_URL does not answer: ${(err as Error).message}\n${HOW_TO}`, {
      cause: err,
    });
  } finally {
    await pg.end().catch(() => undefined);
  }
  const admin = new Admin({
    clientId: 'bench-check',
    bootstrapBrokers: env.kafkaBrokers,
    connectTimeout: 3_000,
    retries: 1,
  });
  try {
    await admin.metadata({ topics: [] });
  } catch (err) {
    throw new Error(`Kafka at KAFKA_BROKERS does not answer: ${(err as Error).message}\n${HOW_TO}`, {
      cause: err,
    });
  } finally {
    await admin.close().catch(() => undefined);
  }
  return env;
}

/** What the figures were measured on. */
export interface MachineInfo {
  nproc: number;
  memoryGiB: number;
  cpuModel: string;
  node: string;
  kafka: string;
  postgres: string;
  /** 1, 5 and 15 minute load averages. */
  load: [number, number, number];
}

/** Current 1/5/15-minute load averages, rounded to 2 decimals. */
export function loadAverage(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = os.loadavg().map((x) => Math.round(x * 100) / 100);
  return [a, b, c];
}

function kafkaVersion(): string {
  // infra/kafka installs the broker under .infra/kafka; its jar names the version.
  try {
    const jar = readdirSync(path.join(ROOT, '.infra/kafka/libs')).find((f) =>
      /^kafka_[\d.]+-[\d.]+\.jar$/.test(f),
    );
    const m = jar?.match(/^kafka_[\d.]+-([\d.]+)\.jar$/);
    if (m?.[1]) return m[1];
  } catch {
    /* not installed there */
  }
  return 'unknown';
}

/** Describes the machine and the servers (CPU from /proc/cpuinfo, versions from the servers). */
export async function machineInfo(env: BenchEnv): Promise<MachineInfo> {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m);
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    /* not Linux */
  }
  const pg = new Client({ connectionString: env.databaseUrl });
  await pg.connect();
  let postgres: string;
  try {
    postgres =
      (await pg.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ??
      'unknown';
  } finally {
    await pg.end();
  }
  return {
    nproc: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    cpuModel,
    node: process.version,
    kafka: kafkaVersion(),
    postgres,
    load: loadAverage(),
  };
}
