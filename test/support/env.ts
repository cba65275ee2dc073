import path from 'node:path';
import { TRAJECTORIES_DIR } from '../../scripts/replay/trajectories';

/**
 * Reads a variable an integration suite needs. Throws — never skips — when it is missing, so a
 * suite whose service is absent fails in CI (run `infra/services.sh up` and source `.infra/env`,
 * or use `npm test`, which does both).
 */
export function requireEnv(name: 'DATABASE_URL' | 'KAFKA_BROKERS' | 'REDIS_URL'): string {
  const v = process.env[name];
  if (!v)
    throw new Error(
      `${name} is not set: integration suites need real services. Run "npm test" (starts them), or "bash infra/services.sh up && source .infra/env".`,
    );
  return v;
}

/** Path of the shared trajectory files (../shared/data/trajectories from the repository root). */
export { TRAJECTORIES_DIR };

export const TRAJECTORY_FILES = ['agentdojo.jsonl', 'tau_bench_airline.jsonl', 'swe_agent.jsonl'].map((f) =>
  path.join(TRAJECTORIES_DIR, f),
);

/** A short random suffix for names (databases, topics, consumer groups). */
export function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}
