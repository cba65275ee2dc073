import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORIES_DIR, readTrajectoryLines, type Trajectory } from '../scripts/replay/trajectories';
import { startStandaloneOnPostgres, type StandaloneOnPostgres } from './support/standalone-on-postgres';

/**
 * The replay sends each trajectory's recorded outcome as scores (issue 15 item 2;
 * docs/architecture.md#scores): real trajectories of the three shared sources (tau-bench with reward
 * 0 and 1, AgentDojo with and without an attack, SWE-agent) are replayed against `npm start`'s
 * process on PostgreSQL, and their sessions' scores are read back from the database. The lines are
 * picked from ../shared/data/trajectories at run time into a temporary file (never committed).
 */
describe('replay: recorded outcomes become scores', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-replay-scores-'));
  const file = path.join(dir, 'picked.jsonl');
  const apiKey = `aw_replay_scores_${newId().replace(/-/g, '')}`;
  let s: StandaloneOnPostgres | undefined;
  const picked: Trajectory[] = [];

  /** The first line of `source` that `want` accepts. */
  async function pick(source: string, want: (t: Trajectory) => boolean): Promise<void> {
    for await (const { trajectory } of readTrajectoryLines(path.join(TRAJECTORIES_DIR, source)))
      if (want(trajectory)) return void picked.push(trajectory);
    throw new Error(`no trajectory of ${source} fits`);
  }

  beforeAll(async () => {
    await pick('tau_bench_airline.jsonl', (t) => t.labels.reward === 0);
    await pick('tau_bench_airline.jsonl', (t) => t.labels.reward === 1);
    await pick('agentdojo.jsonl', (t) => t.labels.is_injection_attack === true);
    await pick('agentdojo.jsonl', (t) => t.labels.is_injection_attack === false);
    await pick('swe_agent.jsonl', (t) => typeof t.labels.exit_status === 'string');
    fs.writeFileSync(file, picked.map((t) => JSON.stringify(t)).join('\n') + '\n');
    s = await startStandaloneOnPostgres(dir, apiKey);
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('each replayed session has its outcome scores, stored once, and a second replay adds none', async () => {
    const summary = await replayFiles({ files: [file], baseUrl: s!.url, apiKey, concurrency: 2 });
    expect(summary).toMatchObject({ trajectories: picked.length, missing: 0, duplicates: 0, incomplete: 0 });

    // The run is named after the trajectory; the scores are on the session, in the order sent (event ids by position).
    const rows = await s!.prisma.$queryRaw<
      {
        trajectory: string;
        name: string;
        data_type: string;
        numeric_value: number | null;
        string_value: string | null;
        source: string;
        author: string;
        run_id: string | null;
      }[]
    >`SELECT r.name AS trajectory, c.name, c.data_type, c.numeric_value, c.string_value, c.source, c.author,
             c.run_id::text
      FROM scores c JOIN runs r ON r.project_id = c.project_id AND r.session_id = c.session_id
      ORDER BY r.name, c.event_id`;
    const value = (r: (typeof rows)[number]) =>
      r.data_type === 'boolean'
        ? r.numeric_value === 1
        : r.data_type === 'numeric'
          ? r.numeric_value
          : r.string_value;
    for (const t of picked) {
      const mine = rows.filter((r) => r.trajectory === t.trajectory_id);
      const expected: [string, unknown][] = [];
      if (t.labels.reward !== undefined)
        expected.push(['reward', t.labels.reward], ['task_succeeded', t.labels.task_succeeded]);
      if (t.labels.user_task_succeeded !== undefined)
        expected.push(['user_task_succeeded', t.labels.user_task_succeeded]);
      if (t.labels.is_injection_attack) expected.push(['attack_succeeded', t.labels.attack_succeeded]);
      if (typeof t.labels.exit_status === 'string') expected.push(['exit_status', t.labels.exit_status]);
      expect(mine.map((r) => [r.name, value(r)])).toEqual(expected);
      for (const r of mine) expect([r.source, r.author, r.run_id]).toEqual(['rule', 'agent', null]);
    }

    const again = await replayFiles({ files: [file], baseUrl: s!.url, apiKey, concurrency: 2 });
    expect(again).toMatchObject({ skipped: picked.length, duplicates: 0 });
    expect(await s!.prisma.score.count()).toBe(rows.length);
  });
});
