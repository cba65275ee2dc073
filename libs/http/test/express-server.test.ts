import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressServer } from '../src/express-server';

/** Starts `app` on a free loopback port with createExpressServer; returns its URL and a closer. */
async function serve(app: express.Express) {
  const server = createExpressServer(app);
  const born: object[] = [];
  // Runs before express sees the request: the prototype the object was created with.
  server.prependListener('request', (req) => born.push(Object.getPrototypeOf(req) as object));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, born, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('createExpressServer', () => {
  test('requests are born with the app prototypes, so express does not re-prototype them', async () => {
    const app = express();
    const seen: { proto: boolean; resProto: boolean }[] = [];
    app.get('/x', (req, res) => {
      seen.push({
        proto: Object.getPrototypeOf(req) === app.request,
        resProto: Object.getPrototypeOf(res) === app.response,
      });
      res.json({ ok: true });
    });
    const s = await serve(app);
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/x`)).status).toBe(200);
      expect(s.born).toHaveLength(3);
      for (const p of s.born) expect(p).toBe(app.request);
      expect(seen).toEqual(Array(3).fill({ proto: true, resProto: true }));
    } finally {
      await s.close();
    }
  });

  test('express request and response helpers behave as with app.listen', async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.post('/echo', express.json(), (req, res) => {
      res.status(201).json({
        app: req.app === app,
        ip: req.ip,
        protocol: req.protocol,
        hostname: req.hostname,
        query: req.query,
        header: req.get('x-test'),
        body: req.body as unknown,
        isJson: req.is('application/json'),
      });
    });
    const s = await serve(app);
    try {
      const res = await fetch(`${s.url}/echo?a=1&b=two`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test': 'yes', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ n: 1 }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({
        app: true,
        ip: '127.0.0.1',
        protocol: 'https',
        hostname: '127.0.0.1',
        query: { a: '1', b: 'two' },
        header: 'yes',
        body: { n: 1 },
        isJson: 'application/json',
      });
    } finally {
      await s.close();
    }
  });

  test('a mounted sub-app sees itself as req.app, the parent sees itself again afterwards', async () => {
    const app = express();
    const sub = express();
    sub.use((req, _res, next) => {
      (req as unknown as { inSub: boolean }).inSub = req.app === sub;
      next();
    });
    app.use('/sub', sub);
    app.use((req, res) => {
      res.json({ inSub: (req as unknown as { inSub?: boolean }).inSub ?? null, parent: req.app === app });
    });
    const s = await serve(app);
    try {
      expect(await (await fetch(`${s.url}/sub/anything`)).json()).toEqual({ inSub: true, parent: true });
      expect(await (await fetch(`${s.url}/other`)).json()).toEqual({ inSub: null, parent: true });
    } finally {
      await s.close();
    }
  });
});
