import { WardenClient } from '@agent-warden/client';
import { INGEST_LIMITS } from '@agent-warden/contracts';
import { loadTrajectories } from '../../scripts/replay/trajectories';

/** Options of {@link sendLargeSession}. */
export interface LargeSessionOptions {
  baseUrl: string;
  apiKey: string;
  /** Events to send in the one session, at least (default 10 000). */
  events?: number;
  /** The trajectory file whose runs are replayed over and over (default tau_bench_airline.jsonl). */
  file?: string;
  /** Longest wait for the service to store every sent event, ms (default 120 000). */
  settleTimeoutMs?: number;
}

/** What was sent and stored. */
export interface LargeSession {
  sessionId: string;
  /** Events the client sent (the session's `eventCount` once stored). */
  sent: number;
  /** Input summary of the session (what the page shows as its title). */
  inputSummary: string;
}

/**
 * Sends ONE session of at least `events` events through the TypeScript client (monitor mode, the
 * largest batches the gateway takes): real airline customer-service trajectories replayed one after
 * another as runs of that session — each message as `agent.message.logged`, each tool call as
 * `agent.tool.started` + `completed`/`failed` with its logged arguments and result — until the
 * count is reached, then waits until the api reports the session's `eventCount` equal to what was
 * sent. Throws when the client dropped, failed or had events rejected, or the store does not catch up.
 */
export async function sendLargeSession(o: LargeSessionOptions): Promise<LargeSession> {
  const target = o.events ?? 10_000;
  const trajectories = loadTrajectories(o.file ?? 'tau_bench_airline.jsonl');
  if (trajectories.length === 0) throw new Error('no trajectories to replay');
  const client = new WardenClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    agent: { key: 'large-session-agent', name: 'Large session agent' },
    version: { version: 'large-1', metadata: { purpose: 'a session of many events' } },
    mode: 'monitor',
    maxBatchSize: INGEST_LIMITS.maxEventsPerBatch,
    maxQueueSize: target * 2,
    flushIntervalMs: 500,
  });
  await client.ready();
  const inputSummary = `A long shift of the airline agent: ${trajectories.length} tasks over and over`;
  const sessionId = client.startSession({ inputSummary, attributes: { purpose: 'large-session' } });
  const count = () => {
    const s = client.stats();
    return s.sent + s.queued;
  };
  // Two events close the session: the last run's completion and session.ended.
  for (let i = 0; count() < target - 2; i++) {
    const t = trajectories[i % trajectories.length]!;
    await client.withRun({ name: `${t.trajectory_id} #${i + 1}`, inputSummary: t.task }, async () => {
      for (const step of t.steps) {
        if (count() >= target - 2) break;
        if (step.kind === 'message') client.trackMessage({ role: step.role, content: step.content ?? '' });
        else
          client.recordTool({
            name: step.tool || '<empty-function-name>',
            arguments: step.arguments ?? {},
            result: step.error ? undefined : step.result,
            error: step.error ?? undefined,
          });
      }
    });
  }
  client.endSession({ status: 'completed' });
  await client.shutdown();
  const stats = client.stats();
  if (stats.dropped || stats.failed || stats.rejected)
    throw new Error(`the client lost events: ${JSON.stringify(stats)}`);

  const deadline = Date.now() + (o.settleTimeoutMs ?? 120_000);
  for (;;) {
    const res = await fetch(`${o.baseUrl}/v1/sessions/${sessionId}?eventsLimit=0`, {
      headers: { authorization: `Bearer ${o.apiKey}` },
    });
    const body = res.ok ? ((await res.json()) as { eventCount: number }) : undefined;
    if (body && body.eventCount >= stats.sent) break;
    if (Date.now() > deadline)
      throw new Error(`stored ${body?.eventCount ?? 0} of ${stats.sent} events before the deadline`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return { sessionId, sent: stats.sent, inputSummary };
}
