import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake endpoint received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** How the fake endpoint answers one request. */
export type Answer =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'raw'; status: number; body: string; contentType: string }
  | { kind: 'hang' };

/**
 * A local OpenAI-compatible HTTP server (node:http on 127.0.0.1, random port) implementing
 * `POST /v1/chat/completions`. Each request is recorded and answered by `answer(body)`; anything
 * else is a 404 in the API's error shape.
 */
export interface FakeOpenAI {
  baseUrl: string;
  requests: ReceivedRequest[];
  answer: (body: Record<string, unknown>) => Answer;
  close(): Promise<void>;
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const pending = new Set<ServerResponse>();
  const fake: FakeOpenAI = {
    baseUrl: '',
    requests: [],
    answer: () => ({
      kind: 'json',
      status: 500,
      body: { error: { message: 'no answer set', type: 'server_error' } },
    }),
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      fake.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const a = fake.answer(body as Record<string, unknown>);
      if (a.kind === 'hang') {
        pending.add(res);
        return;
      }
      const payload = a.kind === 'json' ? JSON.stringify(a.body) : a.body;
      res.writeHead(a.status, { 'content-type': a.kind === 'json' ? 'application/json' : a.contentType });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/**
 * A `chat.completion` object as the Chat Completions API returns it, whose single choice carries
 * `content` (the structured output, as a JSON string) — the shape the openai SDK's `parse` reads.
 */
export function chatCompletion(
  model: string,
  content: string | null,
  extra: { refusal?: string; finishReason?: string } = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: extra.refusal ?? null, annotations: [] },
        logprobs: null,
        finish_reason: extra.finishReason ?? 'stop',
      },
    ],
    usage: { prompt_tokens: 812, completion_tokens: 143, total_tokens: 955 },
    system_fingerprint: 'fp_test',
  };
}
