import type { Request } from 'express';
import { Router } from 'express';
import type { EventBus } from '@agent-warden/bus';
import { TOPICS, toCloudEvent, type AgentEvent } from '@agent-warden/contracts';

/** Path of the parse-only floor route on the benchmark's gateway. */
export const FLOOR_PATH = '/bench/floor';

/** Path of the parse-and-produce floor route on the benchmark's gateway. */
export const FLOOR_PRODUCE_PATH = '/bench/floor-produce';

/** Project id the parse-and-produce floor puts in its records (nobody consumes them in the benchmark). */
const FLOOR_PROJECT_ID = '00000000-0000-7000-8000-000000000000';

/** The request body read by hand and `JSON.parse`d (UTF-8). Rejects on a read or parse error. */
function readJson(req: Request): Promise<{ events?: AgentEvent[] }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: AgentEvent[] });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/**
 * The benchmark's two floors of `POST /v1/events`, on the gateway's own express app and server,
 * mounted before every gateway middleware (docs/benchmarks.md "Gateway against a parse-only floor
 * (issue 17 item 6)"). No API key, validation or metrics in either:
 * - `POST /bench/floor`: only what any HTTP gateway must do with a batch — receive the body, read
 *   it as UTF-8, `JSON.parse` it and answer 202 with the shape of `POST /v1/events`
 *   (`{"accepted":<events.length>,"rejected":[]}`);
 * - `POST /bench/floor-produce`: the same, and before answering publishes
 *   each event as the gateway would (`toCloudEvent`, key = sessionId, `bus.publish` to
 *   `agent-events`, i.e. `JSON.stringify` and the coalesced idempotent producer), unvalidated:
 *   a gateway that trusted its input.
 */
export function floorRoutes(bus: EventBus): Router {
  const r = Router();
  r.post(FLOOR_PATH, (req, res, next) => {
    readJson(req).then((body) => {
      res.status(202).json({ accepted: body.events?.length ?? 0, rejected: [] });
    }, next);
  });
  r.post(FLOOR_PRODUCE_PATH, (req, res, next) => {
    readJson(req)
      .then(async (body) => {
        const events = body.events ?? [];
        await bus.publish(
          TOPICS.agentEvents,
          events.map((e) => ({ key: e.sessionId, value: toCloudEvent(FLOOR_PROJECT_ID, e) })),
        );
        res.status(202).json({ accepted: events.length, rejected: [] });
      })
      .catch(next);
  });
  return r;
}
