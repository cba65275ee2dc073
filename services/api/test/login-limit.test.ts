import type { AddressInfo } from 'node:net';
import express from 'express';
import { problemHandler } from '@agent-warden/http';
import { silentLogger } from '@agent-warden/observability';
import { loginLimiter } from '../src/login-limit';

/** A real HTTP server with the limiters in front of a login route that always answers 401. */
async function serve(limit: { failures: number; failuresPerAddress: number; windowMs: number }) {
  const app = express();
  app.use(express.json());
  app.post('/v1/auth/login', ...loginLimiter(limit), (_req, res) => {
    res.status(401).json({ status: 401 });
  });
  app.use(problemHandler(silentLogger()));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/auth/login`;
  const attempt = (email: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'guess guess guess' }),
    });
  return { attempt, close: () => new Promise((r) => server.close(r)) };
}

describe('sign-in throttling', () => {
  test('spraying many emails from one address is throttled once the per-address budget is spent', async () => {
    const s = await serve({ failures: 3, failuresPerAddress: 5, windowMs: 60_000 });
    try {
      for (let i = 0; i < 5; i++) expect((await s.attempt(`person${i}@example.com`)).status).toBe(401);
      const limited = await s.attempt('never-tried@example.com');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toMatchObject({
        code: 'rate_limited',
        detail: expect.stringContaining('address'),
      });
    } finally {
      await s.close();
    }
  });

  test('one email is throttled after its own budget while other emails from the address still get through', async () => {
    const s = await serve({ failures: 3, failuresPerAddress: 50, windowMs: 60_000 });
    try {
      for (let i = 0; i < 3; i++) expect((await s.attempt('target@example.com')).status).toBe(401);
      expect((await s.attempt('TARGET@example.com')).status).toBe(429);
      expect((await s.attempt('other@example.com')).status).toBe(401);
    } finally {
      await s.close();
    }
  });
});
