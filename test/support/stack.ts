import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { bootstrapProject } from '@agent-warden/api';
import { start as startApi } from '@agent-warden/api';
import { start as startGateway, type RunningGateway } from '@agent-warden/gateway';
import { silentLogger } from '@agent-warden/observability';
import { BullMqJobQueue, type JobQueue } from '@agent-warden/queue';
import { createTestDatabase, type TestDatabase } from './database';
import { randomSuffix, requireEnv } from './env';

const ROOT = path.resolve(__dirname, '../..');

/** A service (projector, intelligence worker) running as its own OS process (so a test can kill it hard). */
export interface ProjectorProcess {
  child: ChildProcess;
  /** SIGKILL: no graceful commit, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

/**
 * The real stack for one test file: fresh database, gateway + api in-process, projector (and, when
 * asked, the intelligence worker) as child processes, a job queue on the real Redis with its own
 * key prefix.
 */
export interface TestStack {
  db: TestDatabase;
  prisma: PrismaClient;
  gatewayUrl: string;
  apiUrl: string;
  apiKey: string;
  projectId: string;
  topicPrefix: string;
  env: Record<string, string>;
  /** A producer/reader on the stack's job queue (same Redis prefix as its services). */
  queue: JobQueue;
  /** Starts a projector process; `env` is added to the stack's (e.g. its own `WARDEN_METRICS_PORT`). */
  startProjector(env?: Record<string, string>): Promise<ProjectorProcess>;
  /** Starts an intelligence worker process (services/intelligence) on the stack's queue. */
  startIntelligence(env?: Record<string, string>): Promise<ProjectorProcess>;
  /** SIGKILLs every projector process of this stack. */
  killProjectors(): Promise<void>;
  stop(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/**
 * Starts the stack on real Kafka, PostgreSQL and Redis with an isolated database, topic prefix,
 * consumer group and queue prefix. Session readiness uses short delays (quiet 1500 ms, ended
 * 300 ms) unless `env` overrides them. Throws when `DATABASE_URL`, `KAFKA_BROKERS` or `REDIS_URL`
 * is missing.
 */
export async function startTestStack(
  options: { projector?: boolean; intelligence?: boolean; env?: Record<string, string> } = {},
): Promise<TestStack> {
  const brokers = requireEnv('KAFKA_BROKERS');
  const redisUrl = requireEnv('REDIS_URL');
  const queuePrefix = `q${randomSuffix()}`;
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { poolMax: 4 });
  const apiKey = `aw_test_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
  const boot = await bootstrapProject(prisma, { initApiKey: apiKey });
  const topicPrefix = `t${randomSuffix()}.`;
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: brokers,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    WARDEN_PROJECTOR_GROUP: `projector-${randomSuffix()}`,
    WARDEN_EVENT_PARTITIONS: '3',
    REDIS_URL: redisUrl,
    WARDEN_QUEUE_PREFIX: queuePrefix,
    WARDEN_SESSION_QUIET_MS: '1500',
    WARDEN_SESSION_ENDED_DELAY_MS: '300',
    // No metrics server unless a test asks for one (several service processes run side by side).
    WARDEN_METRICS_PORT: '0',
    // The LLM narrative and the model evaluator stay off unless a test turns them on.
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    WARDEN_LLM_EVALUATOR: '',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...options.env,
  };
  const gateway: RunningGateway = await startGateway(
    {
      PORT: 0,
      DATABASE_URL: db.url,
      KAFKA_BROKERS: brokers.split(','),
      KAFKA_TOPIC_PREFIX: topicPrefix,
      WARDEN_EVENT_PARTITIONS: 3,
      WARDEN_MAX_BODY_BYTES: 1024 * 1024,
      WARDEN_MAX_EVENTS_PER_BATCH: 100,
      WARDEN_MAX_EVENT_BYTES: 64 * 1024,
      WARDEN_APPROVAL_TIMEOUT_SECONDS: 30,
      WARDEN_POLICY_REFRESH_MS: 500,
      LOG_LEVEL: 'silent',
    },
    silentLogger(),
  );
  const api = await startApi(
    {
      PORT: 0,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl,
      KAFKA_BROKERS: brokers.split(','),
      KAFKA_TOPIC_PREFIX: topicPrefix,
      WARDEN_QUEUE_PREFIX: queuePrefix,
      WARDEN_JWT_SECRET: `test-session-secret-${randomSuffix()}${randomSuffix()}${randomSuffix()}`,
      // No periodic retention pass in the middle of a test: retention tests run the job themselves.
      WARDEN_RETENTION_INTERVAL_MS: 0,
    },
    silentLogger(),
  );
  const queue = new BullMqJobQueue({ redisUrl, prefix: queuePrefix });
  const projectors = new Set<ProjectorProcess>();

  const startService = async (
    service: 'projector' | 'intelligence',
    readyLine: string,
    extraEnv: Record<string, string> = {},
  ): Promise<ProjectorProcess> => {
    // `node --import tsx` (not the tsx CLI, which runs the script in a child process that a
    // SIGKILL of the wrapper would orphan): the pid we kill is the service itself.
    const child = spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
      cwd: ROOT,
      env: { ...process.env, ...env, ...extraEnv, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Ready when it logs `readyLine` (the projector logs it after its consumer joined the group).
    await new Promise<void>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout! });
      const timer = setTimeout(() => reject(new Error(`${service} did not start within 90 s`)), 90_000);
      child.once('exit', (code) => reject(new Error(`${service} exited with ${code}`)));
      lines.on('line', (line) => {
        if (line.includes(`"${readyLine}"`)) {
          clearTimeout(timer);
          resolve();
        }
        if (/"level":"(warn|error|fatal)"/.test(line)) process.stderr.write(line + '\n');
      });
    });
    const p: ProjectorProcess = {
      child,
      kill: async () => {
        child.kill('SIGKILL');
        await waitExit(child);
        projectors.delete(p);
      },
      stop: async () => {
        child.kill('SIGTERM');
        await waitExit(child);
        projectors.delete(p);
      },
    };
    projectors.add(p);
    return p;
  };
  const startProjector = (extraEnv?: Record<string, string>) =>
    startService('projector', 'projector consuming', extraEnv);
  const startIntelligence = (extraEnv?: Record<string, string>) =>
    startService('intelligence', 'intelligence worker processing', extraEnv);
  if (options.projector !== false) await startProjector();
  if (options.intelligence) await startIntelligence();

  return {
    db,
    prisma,
    gatewayUrl: gateway.url,
    apiUrl: api.url,
    apiKey,
    projectId: boot.projectId,
    topicPrefix,
    env,
    queue,
    startProjector,
    startIntelligence,
    killProjectors: async () => {
      await Promise.all([...projectors].map((p) => p.kill()));
    },
    stop: async () => {
      await Promise.all([...projectors].map((p) => p.stop()));
      await gateway.stop();
      await api.stop();
      await queue.close();
      await prisma.$disconnect();
      await db.drop();
    },
  };
}
