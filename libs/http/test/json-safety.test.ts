import type { AddressInfo } from 'node:net';
import express from 'express';
import { MAX_BODY_DEPTH } from '@agent-warden/contracts';
import { createExpressServer } from '../src/express-server';
import { mayNeedCleaning, noteCleanJsonBody, requestJsonSafety } from '../src/json-safety';
import { problemHandler } from '../src/problem';
import { silentLogger } from '@agent-warden/observability';

/** `{"k":{"k":…1}}` nested `levels` deep, as JSON text. */
function deepText(levels: number): string {
  return '{"k":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/**
 * An app like the gateway's: `express.json()` with `noteCleanJsonBody` as `verify` (or without it),
 * `requestJsonSafety` with `/batch` as a batch path, and routes that echo the body they got.
 */
async function serve(verify: boolean) {
  const app = express();
  app.use(
    express.json({ type: ['application/json'], ...(verify ? { verify: noteCleanJsonBody } : {}) }),
    requestJsonSafety({ batchPaths: ['/batch'] }),
  );
  app.post(['/one', '/batch'], (req, res) => {
    res.json({ body: req.body as unknown });
  });
  app.use(problemHandler(silentLogger()));
  const server = createExpressServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: string | Buffer, contentType = 'application/json') => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  return { post, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('mayNeedCleaning', () => {
  test('true for a \\u0000 or surrogate escape in either case, false for other escapes and raw text', () => {
    const t = (s: string) => mayNeedCleaning(Buffer.from(s, 'utf8'));
    expect(t('{"a":"\\u0000"}')).toBe(true);
    expect(t('{"a":"\\ud800"}')).toBe(true);
    expect(t('{"a":"\\uDFFF"}')).toBe(true);
    expect(t('{"a":"\\uD83D\\uDE00"}')).toBe(true);
    expect(t('{"\\u0000":1}')).toBe(true);
    expect(t('{"a":"\\u0001 \\u00e9 \\uE000 \\ud7ff \\\\ u"}')).toBe(false);
    expect(t('{"a":"é 😀 plain"}')).toBe(false);
    expect(t('{"a":"\\u')).toBe(false);
  });
});

describe('requestJsonSafety after express.json with noteCleanJsonBody', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve(true);
  });
  afterAll(() => s.close());

  test('a UTF-8 body with an escaped U+0000 or lone surrogate is cleaned on every path', async () => {
    const text = '{"a\\u0000":["x\\ud800",{"b":"\\uDC00y"}],"pair":"\\uD83D\\uDE00"}';
    const want = { 'a\uFFFD': ['x\uFFFD', { b: '\uFFFDy' }], pair: '\uD83D\uDE00' };
    for (const path of ['/one', '/batch'])
      expect(await s.post(path, text)).toEqual({ status: 200, json: { body: want } });
  });

  test('a UTF-8 body with nothing to clean arrives as parsed, raw non-ASCII text included', async () => {
    const text = '{"a":"é 😀 \\u00e9 \\u0001","n":[1,2,{"c":null}]}';
    for (const path of ['/one', '/batch'])
      expect(await s.post(path, text)).toEqual({ status: 200, json: { body: JSON.parse(text) as unknown } });
  });

  test('a UTF-16 body is always cleaned: its raw code units can be lone surrogates', async () => {
    const text = '{"a":"x\uD800y"}';
    const res = await s.post('/one', Buffer.from(text, 'utf16le'), 'application/json; charset=utf-16le');
    expect(res).toEqual({ status: 200, json: { body: { a: 'x\uFFFDy' } } });
  });

  test('depth: a body with nothing to clean is still measured, except on a batch path', async () => {
    const tooDeep = deepText(MAX_BODY_DEPTH + 1);
    const res = await s.post('/one', tooDeep);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([
      {
        path: Array(MAX_BODY_DEPTH).fill('k').join('.'),
        message: `nested deeper than ${MAX_BODY_DEPTH} levels`,
      },
    ]);
    expect((await s.post('/one', deepText(MAX_BODY_DEPTH))).status).toBe(200);
    expect((await s.post('/batch', tooDeep)).status).toBe(200);
  });

  test('the answers are those of the parser without verify', async () => {
    const plain = await serve(false);
    try {
      const texts = [
        '{"a\\u0000":"\\ud800"}',
        '{"a":"b"}',
        deepText(MAX_BODY_DEPTH + 1),
        '{"a":',
        '"string"',
        '\uFEFF{"bom":true}',
      ];
      for (const text of texts)
        for (const path of ['/one', '/batch'])
          expect(await s.post(path, text)).toEqual(await plain.post(path, text));
    } finally {
      await plain.close();
    }
  });
});
