import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORY_FILES } from './support/env';
import { startTestStack } from './support/stack';
test('debug', async () => {
  const stack = await startTestStack();
  const t0 = Date.now();
  const summary = await replayFiles({ files: TRAJECTORY_FILES.slice(0, 1), baseUrl: stack.gatewayUrl, apiKey: stack.apiKey, statsUrl: stack.apiUrl, limit: 300, settleTimeoutMs: 20000 });
  console.log(Date.now() - t0, JSON.stringify(summary));
  const r = await stack.prisma.$queryRaw<any[]>`SELECT type, count(*)::int n FROM events GROUP BY type`;
  console.log(JSON.stringify(r));
  await stack.stop();
}, 300000);
