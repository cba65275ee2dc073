import net from 'node:net';
import { startHealthServer, stopWithin } from '../src/worker-health';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('startHealthServer', () => {
  test('answers /health at once and /ready only while ready', async () => {
    const health = await startHealthServer(await freePort());
    try {
      expect(health.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${health.url}/health`)).status).toBe(200);
      expect((await fetch(`${health.url}/ready`)).status).toBe(503);
      health.setReady(true);
      expect((await fetch(`${health.url}/ready`)).status).toBe(200);
      health.setReady(false);
      expect((await fetch(`${health.url}/ready`)).status).toBe(503);
    } finally {
      await health.close();
    }
  });

  test('port 0 starts no server', async () => {
    const health = await startHealthServer(0);
    expect(health.url).toBeUndefined();
    await expect(health.close()).resolves.toBeUndefined();
  });
});

describe('stopWithin', () => {
  test('runs the steps in order to the end', async () => {
    const done: string[] = [];
    await stopWithin(10_000, async () => {
      done.push('consumer');
      await new Promise((r) => setImmediate(r));
      done.push('database');
    });
    expect(done).toEqual(['consumer', 'database']);
  });

  test('gives up on a step that never ends once the deadline passes', async () => {
    let after = false;
    await stopWithin(20, async () => {
      await new Promise<never>(() => undefined);
      after = true;
    });
    expect(after).toBe(false);
  });

  test('passes on the error of a failing step', async () => {
    await expect(
      stopWithin(10_000, async () => {
        throw new Error('broker gone');
      }),
    ).rejects.toThrow('broker gone');
  });
});
