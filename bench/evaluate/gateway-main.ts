/**
 * Child-process entry of `bench:evaluate`: the real gateway (`start()` of `@agent-warden/gateway`)
 * with one bench-only route mounted on the same server, `POST /bench/bare` (`express.json()` and
 * `{ok:true}`), the baseline. Prints `{"ready":true,"url":…}` on stdout; stops on SIGTERM.
 */
import express, { Router } from 'express';
import { parseEnv } from '@agent-warden/config';
import { GatewayConfig, start } from '@agent-warden/gateway';
import { createLogger } from '@agent-warden/observability';

async function main(): Promise<void> {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'bench-gateway', level: config.LOG_LEVEL });
  const bare = Router().post('/bench/bare', express.json(), (_req, res) => {
    res.json({ ok: true });
  });
  const gw = await start(config, logger, [bare]);
  process.stdout.write(JSON.stringify({ ready: true, url: gw.url }) + '\n');
  process.once('SIGTERM', () => {
    gw.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`bench gateway failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
