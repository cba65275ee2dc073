import { Router } from 'express';

/** Path of the parse-only floor route on the benchmark's gateway. */
export const FLOOR_PATH = '/bench/floor';

/**
 * `POST /bench/floor`: only what any HTTP gateway must do with a batch — receive the body, read it
 * as UTF-8, `JSON.parse` it and answer 202 with the shape of `POST /v1/events`
 * (`{"accepted":<events.length>,"rejected":[]}`). No API key, validation, Kafka or metrics: the
 * floor the gateway's own per-request work is measured against (docs/benchmarks.md "Gateway
 * against a parse-only floor (issue 17 item 6)"). It runs on the gateway's express app and server,
 * mounted before every gateway middleware.
 */
export function floorRoute(): Router {
  return Router().post(FLOOR_PATH, (req, res, next) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', next);
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: unknown[] };
        res.status(202).json({ accepted: body.events?.length ?? 0, rejected: [] });
      } catch (err) {
        next(err);
      }
    });
  });
}
