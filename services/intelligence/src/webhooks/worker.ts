import {
  claimDueWebhookDeliveries,
  expireDueApprovals,
  projectsSubscribedTo,
  pruneWebhookDeliveries,
  recordWebhookAttempt,
  saveWebhookPayload,
  webhookEventSource,
  type ClaimedWebhookDelivery,
  type PrismaClient,
} from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';
import type { Processor } from '@agent-warden/queue';
import { isRetriable, parseRetryAfter, retryDelayMs } from './backoff';
import { buildWebhookPayload, renderBody } from './payload';
import { webhookHeaders } from '@agent-warden/http';

/** Tuning of the webhook worker (services/intelligence README, `WARDEN_WEBHOOK_*`). */
export interface WebhookWorkerOptions {
  /** Wait between polls of the delivery table when nothing was due (ms). */
  pollMs: number;
  /** Tries per delivery before it is kept as `failed`. */
  attempts: number;
  /** Backoff before the first retry, doubled each time up to `backoffMaxMs` (ms, with jitter). */
  backoffMs: number;
  backoffMaxMs: number;
  /** Time limit of one HTTP attempt (ms). */
  timeoutMs: number;
  /** Delivered and failed deliveries are deleted this many days after their creation. */
  logDays: number;
  /** Dashboard base URL for links in the bodies (`WARDEN_PUBLIC_URL`); null: no links. */
  publicUrl: string | null;
  /** Deliveries claimed (and sent concurrently) per poll. Default 16. */
  batch?: number;
}

/** Outcome of one HTTP attempt. */
interface Attempt {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  durationMs: number;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Attempt> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'agent-warden-webhooks/1', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return {
      statusCode: res.status,
      error: ok ? null : `HTTP ${res.status}`,
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      durationMs: performance.now() - started,
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const detail = e.cause?.code ?? e.cause?.message ?? e.message;
    return {
      statusCode: null,
      error: `${e.name}: ${detail}`.slice(0, 500),
      retryAfterMs: null,
      durationMs: performance.now() - started,
    };
  }
}

/**
 * Works off `webhook_deliveries` (docs/operations.md#notifications): every `pollMs` it claims the
 * due deliveries (a lease, so several workers share the table and a crash loses nothing), builds
 * the body at the first attempt (kept for the retries), signs it (Standard Webhooks) and POSTs it.
 * A 2xx is `delivered`; a network error, timeout, 408, 429 or 5xx is retried with exponential
 * backoff and jitter until `attempts`; any other answer, or the last attempt, is `failed`. Each
 * attempt is one structured log line (never the URL, which may hold a token, nor the secret).
 * It also applies due approval timeouts of projects subscribed to `approval.expired` (every
 * second at most), and deletes delivered and failed deliveries older than `logDays` (every minute).
 * Returns a {@link Processor}: `close()` stops polling and waits for the attempts in flight.
 */
export function startWebhookWorker(deps: {
  db: PrismaClient;
  logger: Logger;
  options: WebhookWorkerOptions;
}): Processor {
  const { db, logger, options: o } = deps;
  const batch = o.batch ?? 16;
  // Longer than an attempt and its two writes; a worker that dies mid-attempt delays it by this much.
  const leaseMs = 2 * o.timeoutMs + 10_000;
  let stopping = false;
  let wake: (() => void) | null = null;
  let lastSweep = 0;
  let lastPrune = 0;

  const attemptOne = async ({ delivery: d, subscription: s }: ClaimedWebhookDelivery) => {
    const attempt = d.attempts + 1;
    const log = { deliveryId: d.id, subscriptionId: s.id, eventType: d.eventType, attempt };
    if (!s.enabled) {
      await recordWebhookAttempt(db, d.id, {
        outcome: 'failed',
        statusCode: null,
        error: 'subscription disabled',
        durationMs: 0,
      });
      logger.info({ ...log, outcome: 'failed' }, 'webhook not sent: subscription disabled');
      return;
    }
    let body = d.payload;
    if (body === null) {
      const source = await webhookEventSource(db, d);
      if (!source) {
        await recordWebhookAttempt(db, d.id, {
          outcome: 'failed',
          statusCode: null,
          error: 'event not found',
          durationMs: 0,
        });
        logger.warn({ ...log, outcome: 'failed' }, 'webhook not sent: its event is gone');
        return;
      }
      body = renderBody(buildWebhookPayload(d, source, o.publicUrl), s.format);
      await saveWebhookPayload(db, d.id, body);
    }
    const r = await post(s.url, webhookHeaders(s.secret, d.id, body), body, o.timeoutMs);
    const delivered = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const retry = !delivered && isRetriable(r.statusCode) && attempt < o.attempts;
    const nextAttemptAt = retry
      ? new Date(
          Date.now() +
            retryDelayMs(attempt, {
              baseMs: o.backoffMs,
              maxMs: o.backoffMaxMs,
              retryAfterMs: r.retryAfterMs,
            }),
        )
      : undefined;
    const outcome = delivered ? 'delivered' : retry ? 'retry' : 'failed';
    await recordWebhookAttempt(db, d.id, { outcome, ...r, nextAttemptAt });
    const fields = {
      ...log,
      outcome,
      statusCode: r.statusCode,
      error: r.error,
      durationMs: Math.round(r.durationMs),
      nextAttemptAt: nextAttemptAt?.toISOString(),
    };
    if (delivered) logger.info(fields, 'webhook delivered');
    else logger.warn(fields, retry ? 'webhook attempt failed, will retry' : 'webhook delivery failed');
  };

  const sweepTimeouts = async () => {
    if (Date.now() - lastSweep < Math.max(o.pollMs, 1000)) return;
    lastSweep = Date.now();
    for (const projectId of await projectsSubscribedTo(db, 'approval.expired'))
      await expireDueApprovals(db, projectId);
  };

  const prune = async () => {
    if (Date.now() - lastPrune < 60_000) return;
    lastPrune = Date.now();
    const n = await pruneWebhookDeliveries(db, new Date(Date.now() - o.logDays * 86_400_000));
    if (n > 0) logger.info({ deleted: n, logDays: o.logDays }, 'webhook delivery log pruned');
  };

  const tick = async (): Promise<boolean> => {
    await sweepTimeouts();
    await prune();
    const claimed = await claimDueWebhookDeliveries(db, { limit: batch, leaseMs });
    await Promise.all(
      claimed.map((c) =>
        attemptOne(c).catch((err: unknown) =>
          logger.error({ err, deliveryId: c.delivery.id }, 'webhook attempt could not be recorded'),
        ),
      ),
    );
    return claimed.length === batch;
  };

  const loop = (async () => {
    while (!stopping) {
      let full = false;
      try {
        full = await tick();
      } catch (err) {
        logger.error({ err }, 'webhook worker poll failed');
      }
      if (!full && !stopping)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, o.pollMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      wake = null;
    }
  })();

  return {
    close: async () => {
      stopping = true;
      (wake as (() => void) | null)?.();
      await loop;
    },
  };
}
