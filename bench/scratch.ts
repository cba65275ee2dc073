import { Cleanup } from './lib/cleanup';
import { requireBenchEnv } from './lib/env';
import { loadTrajectories } from './lib/workload';
import { benchProjector } from './parts/projector';
async function main() {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const env = await requireBenchEnv();
  const t = loadTrajectories();
  const c = new Cleanup();
  try {
    const r = await benchProjector(env, t, { records: 50000, partitions: 3, concurrency: 3, drainTimeoutMs: 120000 }, c, console.log);
    console.log(JSON.stringify(r, null, 1));
  } finally { await c.runAll(); }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
