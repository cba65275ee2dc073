import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { TrajectoryIds } from '../scripts/replay/ids';
import { replayFiles, versionOf } from '../scripts/replay/replay';
import { replayOne } from '../scripts/replay/replay-one';
import { agentKeyOf, scanFile, TRAJECTORIES_DIR, type Trajectory } from '../scripts/replay/trajectories';
import { call, waitFor } from './support/http';
import { startStandalone, type StandaloneProcess } from './support/standalone';

/** The first `n` lines of a shared trajectory file (read in place, written to a temporary file only). */
function firstLines(file: string, n: number): string[] {
  return fs
    .readFileSync(path.join(TRAJECTORIES_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, n);
}

interface StoredEvent {
  type: string;
  time: string;
  sequence: number;
  data: Record<string, unknown>;
}
interface StoredSessionDetail {
  id: string;
  startedAt: string;
  endedAt: string | null;
  runs: { startedAt: string | null; endedAt: string | null }[];
  events: StoredEvent[];
}

/**
 * The replay keeps the source's timing (issue 15 item 4): an AgentDojo session read back through
 * the API lasts exactly its logged `duration_s`, and a tau-bench one (no timing in its log) says
 * `timing: replay`, in the session and in its intelligence.
 */
describe('replay: the source timing, read back through the API', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-replay-timing-'));
  const agentdojo = path.join(dataDir, 'agentdojo-part.jsonl');
  const tau = path.join(dataDir, 'tau-part.jsonl');
  const apiKey = `aw_replay_timing_${newId().replace(/-/g, '')}`;
  let s: StandaloneProcess | undefined;
  const adLines = firstLines('agentdojo.jsonl', 4);
  const tauLines = firstLines('tau_bench_airline.jsonl', 1);

  beforeAll(async () => {
    fs.writeFileSync(agentdojo, adLines.join('\n') + '\n');
    fs.writeFileSync(tau, tauLines.join('\n') + '\n');
    s = await startStandalone({ WARDEN_DATA_DIR: path.join(dataDir, 'warden'), WARDEN_INIT_API_KEY: apiKey });
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const get = async <T>(p: string): Promise<T> => {
    const r = await call(s!.url, 'GET', p, { apiKey });
    expect(r.status).toBe(200);
    return r.body as T;
  };

  /** The sessions of one replayed file, each with its events, by trajectory id. */
  async function sessionsOf(file: string): Promise<Map<string, StoredSessionDetail>> {
    const summary = await replayFiles({ files: [file], baseUrl: s!.url, apiKey, concurrency: 2 });
    expect(summary).toMatchObject({ missing: 0, duplicates: 0, incomplete: 0 });
    const out = new Map<string, StoredSessionDetail>();
    for (const version of summary.agentVersionIds) {
      const page = await get<{ items: { id: string }[] }>(`/v1/sessions?agentVersionId=${version}&limit=100`);
      for (const { id } of page.items) {
        const d = await get<StoredSessionDetail>(`/v1/sessions/${id}`);
        const started = d.events.find((e) => e.type === 'agent.session.started')!;
        out.set((started.data.attributes as { trajectoryId: string }).trajectoryId, d);
      }
    }
    return out;
  }

  test('an AgentDojo session lasts its logged duration_s, its steps spread over it', async () => {
    const sessions = await sessionsOf(agentdojo);
    expect(sessions.size).toBe(adLines.length);
    for (const line of adLines) {
      const t = JSON.parse(line) as { trajectory_id: string; meta: { duration_s: number } };
      const d = sessions.get(t.trajectory_id)!;
      const total = Math.round(t.meta.duration_s * 1000);
      const start = Date.parse(d.startedAt);
      expect(Date.parse(d.endedAt!) - start).toBe(total);
      expect(d.runs).toHaveLength(1);
      expect(Date.parse(d.runs[0]!.endedAt!) - Date.parse(d.runs[0]!.startedAt!)).toBe(total);
      const started = d.events.find((e) => e.type === 'agent.session.started')!;
      expect(started.data.attributes).toMatchObject({ timing: 'source-total-only' });
      // In sequence order the times never go back and stay within the logged run.
      const times = [...d.events].sort((a, b) => a.sequence - b.sequence).map((e) => Date.parse(e.time));
      times.forEach((time, i) => {
        expect(time).toBeGreaterThanOrEqual(i === 0 ? start : times[i - 1]!);
        expect(time).toBeLessThanOrEqual(start + total);
      });
      // The log times no tool call: 0 ms each, not the replay's.
      for (const e of d.events.filter(
        (x) => x.type === 'agent.tool.completed' || x.type === 'agent.tool.failed',
      ))
        expect(e.data.durationMs).toBe(0);
      const runCompleted = d.events.find((e) => e.type === 'agent.run.completed')!;
      expect(runCompleted.data.durationMs).toBe(total);
    }
    // The intelligence reports the logged duration as the agent's.
    const [first] = adLines.map(
      (l) => JSON.parse(l) as { trajectory_id: string; meta: { duration_s: number } },
    );
    const intel = await waitFor(async () => {
      const r = await call(
        s!.url,
        'GET',
        `/v1/sessions/${sessions.get(first!.trajectory_id)!.id}/intelligence`,
        {
          apiKey,
        },
      );
      return r.status === 200 ? (r.body as { summary: { figures: Record<string, unknown> } }) : undefined;
    }, 60_000);
    expect(intel.summary.figures).toMatchObject({
      timing: 'source-total-only',
      durationMs: Math.round(first!.meta.duration_s * 1000),
    });
  }, 300_000);

  test('a tau-bench session (no timing in its log) says timing replay, and its intelligence states no duration', async () => {
    const sessions = await sessionsOf(tau);
    expect(sessions.size).toBe(1);
    const [d] = [...sessions.values()];
    const started = d!.events.find((e) => e.type === 'agent.session.started')!;
    expect(started.data.attributes).toMatchObject({ timing: 'replay' });
    const intel = await waitFor(async () => {
      const r = await call(s!.url, 'GET', `/v1/sessions/${d!.id}/intelligence`, { apiKey });
      return r.status === 200
        ? (r.body as { summary: { text: string; figures: Record<string, unknown> } })
        : undefined;
    }, 60_000);
    expect(intel.summary.figures.timing).toBe('replay');
    expect(intel.summary.text).toContain("the durations are the replay's, not the agent's");
    expect(intel.summary.text).not.toMatch(/ over \d/);
  }, 300_000);

  test('replaying the files again changes nothing: the stored times stay', async () => {
    const before = await sessionsOf(agentdojo);
    const again = await sessionsOf(agentdojo);
    for (const [id, d] of before) {
      expect(again.get(id)!.startedAt).toBe(d.startedAt);
      expect(again.get(id)!.events.map((e) => e.time)).toEqual(d.events.map((e) => e.time));
    }
  }, 300_000);

  test('a replay cut off mid-session and run again: the session still lasts its logged duration (the resumed part anchors at the stored start)', async () => {
    // A trajectory with more events than one batch of the client (25), so a cut leaves a part stored.
    const line = firstLines('agentdojo.jsonl', 200).find(
      (l) => (JSON.parse(l) as Trajectory).n_tool_calls >= 9,
    )!;
    const t = JSON.parse(line) as Trajectory;
    const file = path.join(dataDir, 'agentdojo-cut.jsonl');
    fs.writeFileSync(file, line + '\n');
    const { digest } = await scanFile(file);
    const version = versionOf(digest, '');
    const identify = await call(s!.url, 'POST', '/v1/agents/identify', {
      apiKey,
      body: {
        agent: { key: agentKeyOf(t.agent), name: t.agent },
        version: { version, metadata: { replay: 'true' } },
      },
    });
    const ids = new TrajectoryIds({
      namespace: '',
      projectId: (identify.body as { projectId: string }).projectId,
      fileDigest: digest,
      trajectoryId: t.trajectory_id,
      line: 1,
    });
    // The network goes away after the first event batch: what an interrupted replay leaves.
    let batches = 0;
    const cut: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/v1/events') && init?.method === 'POST' && ++batches > 1)
        throw new TypeError('fetch failed (the test cut the network)');
      return fetch(input, init);
    };
    const first = await replayOne(t, ids, {
      baseUrl: s!.url,
      apiKey,
      read: { url: s!.url, apiKey, fetch },
      mode: 'monitor',
      version,
      versionMetadata: { replay: 'true' },
      approvalWaitMs: 1000,
      fetch: cut,
      requestTimeoutMs: 10_000,
      stopped: {},
      byLabel: {},
    });
    expect(first).toMatchObject({ kind: 'replayed', resumed: false });
    expect((first as { unsent: number }).unsent).toBeGreaterThan(0);
    const partial = await waitFor(async () => {
      const r = await call(s!.url, 'GET', `/v1/sessions/${ids.sessionId}?eventsLimit=0`, { apiKey });
      return r.status === 200 && (r.body as { eventCount: number }).eventCount === 25
        ? (r.body as StoredSessionDetail)
        : undefined;
    });
    expect(partial.endedAt).toBeNull();

    const sessions = await sessionsOf(file);
    const d = sessions.get(t.trajectory_id)!;
    expect(d.id).toBe(ids.sessionId);
    expect(d.startedAt).toBe(partial.startedAt);
    expect(Date.parse(d.endedAt!) - Date.parse(d.startedAt)).toBe(
      Math.round((t.meta.duration_s as number) * 1000),
    );
  }, 300_000);
});
