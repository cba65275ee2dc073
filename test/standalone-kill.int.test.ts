import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { call } from './support/http';
import { startStandalone, type StandaloneProcess } from './support/standalone';

/** Sessions the sender spreads its events over. */
const SESSIONS = 5;
const BATCH = 25;

/**
 * Standalone (`npm start`) killed with SIGKILL while a client sends event batches continuously,
 * then restarted on the same data directory: every event that got a 2xx is stored exactly once
 * (docs/decisions.md: a 2xx means stored exactly once), counted by id from the API.
 */
describe('standalone: SIGKILL mid-ingest, restart on the same data dir', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-kill-'));
  const apiKey = `aw_kill_test_${newId().replace(/-/g, '')}`;
  const env = { WARDEN_DATA_DIR: dataDir, WARDEN_INIT_API_KEY: apiKey };
  let s: StandaloneProcess | undefined;

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('every acknowledged event is stored once; the unacknowledged batches, sent again, are stored once too', async () => {
    s = await startStandalone(env);
    const id = await call(s.url, 'POST', '/v1/agents/identify', {
      apiKey,
      body: { agent: { key: 'kill-test-agent' }, version: { version: '1.0.0' } },
    });
    expect(id.status).toBe(200);
    const { agentId, agentVersionId } = id.body as { agentId: string; agentVersionId: string };
    const sessions = Array.from({ length: SESSIONS }, () => newId());
    const sequences = new Map<string, number>();
    const makeBatch = (b: number) =>
      Array.from({ length: BATCH }, (_, i) => {
        const sessionId = sessions[(b + i) % SESSIONS]!;
        const sequence = (sequences.get(sessionId) ?? 0) + 1;
        sequences.set(sessionId, sequence);
        return {
          id: newId(),
          type: 'agent.custom',
          time: new Date().toISOString(),
          sessionId,
          agentId,
          agentVersionId,
          sequence,
          data: { name: 'kill-test', data: { batch: b, i } },
        };
      });

    // The client: sends batch after batch until told to stop; sorts them by the answer.
    const acked: string[] = [];
    const unacked: ReturnType<typeof makeBatch>[] = [];
    let stop = false;
    const url = s.url;
    const sender = (async () => {
      for (let b = 0; !stop; b++) {
        const batch = makeBatch(b);
        try {
          const res = await call(url, 'POST', '/v1/events', { apiKey, body: { events: batch } });
          if (res.status >= 200 && res.status < 300) {
            expect(res.body.accepted).toBe(BATCH);
            acked.push(...batch.map((e) => e.id));
          } else unacked.push(batch);
        } catch {
          unacked.push(batch); // no answer: the service is gone
          if (s!.child.exitCode !== null || s!.child.signalCode !== null) stop = true;
        }
      }
    })();

    // Kill it while batches are flowing (one is almost surely in flight).
    while (acked.length < 40 * BATCH) await new Promise((r) => setTimeout(r, 20));
    const exited = new Promise((r) => s!.child.once('exit', r));
    s.child.kill('SIGKILL');
    await exited;
    await sender;
    expect(s.child.signalCode).toBe('SIGKILL');
    expect(unacked.length).toBeGreaterThan(0);

    // Restart on the same data directory.
    s = await startStandalone(env);
    const storedIds = async () => {
      const ids: string[] = [];
      for (const sessionId of sessions) {
        let cursor: string | null = null;
        do {
          const q: string = `/v1/sessions/${sessionId}/events?limit=2000${cursor ? `&cursor=${cursor}` : ''}`;
          const page = await call(s!.url, 'GET', q, { apiKey });
          if (page.status === 404) break;
          expect(page.status).toBe(200);
          ids.push(...(page.body.items as { id: string }[]).map((e) => e.id));
          cursor = page.body.nextCursor as string | null;
        } while (cursor);
      }
      return ids;
    };
    const timesStored = (ids: string[]) => {
      const n = new Map<string, number>();
      for (const i of ids) n.set(i, (n.get(i) ?? 0) + 1);
      return n;
    };

    const after = timesStored(await storedIds());
    const lost = acked.filter((i) => after.get(i) !== 1);
    expect(lost).toEqual([]);
    expect([...after.values()].every((c) => c === 1)).toBe(true);

    // What a client does with batches that got no answer: send them again (same ids). Some of
    // them may have landed before the kill; none may be stored twice.
    for (const batch of unacked) {
      const res = await call(s.url, 'POST', '/v1/events', { apiKey, body: { events: batch } });
      expect(res.status).toBe(202);
    }
    const all = [...acked, ...unacked.flat().map((e) => e.id)];
    const final = timesStored(await storedIds());
    expect(all.filter((i) => final.get(i) !== 1)).toEqual([]);
    expect(final.size).toBe(all.length);
    const stats = await call(s.url, 'GET', `/v1/stats/events?agentVersionId=${agentVersionId}`, { apiKey });
    expect(stats.body).toMatchObject({ events: all.length, duplicates: 0, sessions: SESSIONS });
  }, 240_000);
});
