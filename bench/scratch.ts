import { Cleanup } from './lib/cleanup';
import { requireBenchEnv } from './lib/env';
import { loadTrajectories } from './lib/workload';
import { benchGateway } from './parts/gateway';
async function main() {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const env = await requireBenchEnv();
  const t = loadTrajectories();
  const c = new Cleanup();
  try {
    const r = await benchGateway(env, t, { concurrencies: [8, 32], batchSize: 25, warmupMs: 2000, durationMs: 8000, partitions: 3, poolBatches: 1000 }, c, console.log);
    console.log(JSON.stringify(r, null, 1));
  } finally { await c.runAll(); }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
