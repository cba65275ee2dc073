import path from 'node:path';
import { outcomeScores } from '../outcomes';
import { readTrajectories, TRAJECTORIES_DIR, type Trajectory } from '../trajectories';

/** The trajectories of a shared file (read in place, never copied). */
async function all(file: string): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for await (const t of readTrajectories(path.join(TRAJECTORIES_DIR, file))) out.push(t);
  return out;
}

const summary = (t: Trajectory) => outcomeScores(t).map((s) => [s.name, s.value]);

describe('the recorded outcome of each trajectory becomes rule scores (docs/architecture.md#scores)', () => {
  test('tau-bench: reward (numeric) and task_succeeded (boolean), as labelled', async () => {
    const ts = await all('tau_bench_airline.jsonl');
    for (const t of ts)
      expect(summary(t)).toEqual([
        ['reward', t.labels.reward],
        ['task_succeeded', t.labels.task_succeeded],
      ]);
    // Both outcomes occur, so the scores can tell failed sessions from succeeded ones.
    expect(new Set(ts.map((t) => t.labels.task_succeeded))).toEqual(new Set([true, false]));
    for (const s of outcomeScores(ts[0]!)) expect(s.source).toBe('rule');
  });

  test('AgentDojo: user_task_succeeded always, attack_succeeded only when there was an attack', async () => {
    const ts = await all('agentdojo.jsonl');
    for (const t of ts) {
      const expected: [string, unknown][] = [['user_task_succeeded', t.labels.user_task_succeeded]];
      if (t.labels.is_injection_attack) expected.push(['attack_succeeded', t.labels.attack_succeeded]);
      expect(summary(t)).toEqual(expected);
    }
    expect(ts.some((t) => !t.labels.is_injection_attack)).toBe(true);
  });

  test('SWE-agent: exit_status (categorical) when the trajectory recorded one', async () => {
    const ts = await all('swe_agent.jsonl');
    for (const t of ts) {
      const exit = t.labels.exit_status;
      if (typeof exit === 'string')
        expect(outcomeScores(t)).toEqual([
          expect.objectContaining({ name: 'exit_status', value: exit, source: 'rule' }),
        ]);
      else expect(outcomeScores(t)).toEqual([]);
    }
    expect(ts.some((t) => typeof t.labels.exit_status === 'string')).toBe(true);
  });

  test('a trajectory without outcome labels has no scores; labels of another type are left out', () => {
    const bare = { labels: {}, meta: {} } as unknown as Trajectory;
    expect(outcomeScores(bare)).toEqual([]);
    const odd = {
      labels: { reward: 'high', task_succeeded: 1, exit_status: '' },
      meta: {},
    } as unknown as Trajectory;
    expect(outcomeScores(odd)).toEqual([]);
    const fromMeta = { labels: {}, meta: { exit_status: 'exit_cost' } } as unknown as Trajectory;
    expect(summary(fromMeta)).toEqual([['exit_status', 'exit_cost']]);
  });
});
