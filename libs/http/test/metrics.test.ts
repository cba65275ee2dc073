import express, { Router } from 'express';
import { createMetrics, silentLogger } from '@agent-warden/observability';
import { httpMetrics, metricsHandler, startMetricsServer, UNMATCHED_ROUTE } from '../src/metrics';
import { listen } from '../src/server';
import { notFoundHandler, problemHandler } from '../src/problem';
import { AppError } from '../src/errors';
import { parseExposition, samplesOf, total } from '../../../test/support/prometheus';

function appWith(metrics: ReturnType<typeof createMetrics>) {
  const app = express();
  app.use(httpMetrics(metrics));
  app.get('/metrics', metricsHandler(metrics));
  // Routers mounted without a path, as every router of the services is: their routes hold full paths.
  const v1 = Router();
  v1.get('/v1/sessions/:sessionId', (req, res) => void res.json({ id: req.params.sessionId }));
  v1.post('/v1/fail/:id', () => {
    throw new AppError('forbidden', 'no');
  });
  app.use(v1);
  app.use(notFoundHandler);
  app.use(problemHandler(silentLogger()));
  return app;
}

describe('httpMetrics', () => {
  test('counts by route template (never the raw path), method and status, and times each request', async () => {
    const metrics = createMetrics();
    const server = await listen(appWith(metrics), 0, '127.0.0.1');
    try {
      for (const id of ['a', 'b', 'c'])
        expect((await fetch(`${server.url}/v1/sessions/${id}`)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/fail/x`, { method: 'POST' })).status).toBe(403);
      expect((await fetch(`${server.url}/nowhere/123`)).status).toBe(404);

      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      const e = parseExposition(await res.text());
      expect(
        total(e, 'warden_http_requests_total', {
          route: '/v1/sessions/:sessionId',
          method: 'GET',
          status: '200',
        }),
      ).toBe(3);
      expect(
        total(e, 'warden_http_requests_total', { route: '/v1/fail/:id', method: 'POST', status: '403' }),
      ).toBe(1);
      expect(total(e, 'warden_http_requests_total', { route: UNMATCHED_ROUTE, status: '404' })).toBe(1);
      expect(
        total(e, 'warden_http_request_duration_seconds_count', {
          route: '/v1/sessions/:sessionId',
          method: 'GET',
        }),
      ).toBe(3);
      // No label value carries a raw path or an id.
      for (const s of samplesOf(e, 'warden_http_requests_total'))
        expect(['/v1/sessions/:sessionId', '/v1/fail/:id', UNMATCHED_ROUTE]).toContain(s.labels.route);
    } finally {
      await server.close();
    }
  });
});

describe('startMetricsServer', () => {
  test('serves GET /metrics, and the 404 problem anywhere else', async () => {
    const metrics = createMetrics();
    metrics.events.accepted.inc(2);
    const server = await startMetricsServer(await freePort(), metrics, silentLogger());
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(total(parseExposition(await res.text()), 'warden_events_accepted_total')).toBe(2);
      const other = await fetch(`${server.url}/`);
      expect(other.status).toBe(404);
      expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    } finally {
      await server.close();
    }
  });

  test('port 0 starts no server', async () => {
    const server = await startMetricsServer(0, createMetrics(), silentLogger());
    expect(server.url).toBeUndefined();
    await server.close();
  });
});

async function freePort(): Promise<number> {
  const net = await import('node:net');
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as import('node:net').AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
