import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { injectedCalls } from '../scripts/efficacy/injected';
import type { EfficacyFigures } from '../scripts/efficacy/tally';
import { loadTrajectories, type Trajectory } from '../scripts/replay/trajectories';

const ROOT = path.resolve(__dirname, '..');

/**
 * `npm run efficacy` end to end (docs/guardrails.md "Efficacy"): on a slice of the shared files it
 * starts the standalone service itself, replays in enforce mode with the balanced pack and prints
 * figures that agree with the labels (every injected call counted) and with what the service stored
 * (its block and require_approval decisions are the calls the figures count as blocked and held).
 */
describe('npm run efficacy', () => {
  const agentdojo = loadTrajectories('agentdojo.jsonl');
  const attacks = agentdojo.filter((t) => injectedCalls(t).size > 0).slice(0, 8);
  const benign = agentdojo
    .filter((t) => {
      const l = t.labels as { is_injection_attack?: boolean; user_task_is_injection_goal?: boolean };
      return !l.is_injection_attack && !l.user_task_is_injection_goal;
    })
    .slice(0, 8);
  const tau = loadTrajectories('tau_bench_airline.jsonl').slice(0, 3);
  const slice: Trajectory[] = [...attacks, ...benign, ...tau];
  let file: string;

  beforeAll(() => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'efficacy-')), 'slice.jsonl');
    fs.writeFileSync(file, slice.map((t) => JSON.stringify(t)).join('\n') + '\n');
  });

  test('balanced: the figures count every injected call and agree with the stored decisions', async () => {
    const { DATABASE_URL: _shared, ...env } = process.env;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/efficacy/cli.ts', '--json', file],
      { cwd: ROOT, env, maxBuffer: 16 << 20, timeout: 300_000 },
    );
    const out = JSON.parse(stdout) as {
      pack: string;
      figures: EfficacyFigures;
      benign: { calls: number; blocked: number; held: number };
      replay: { missing: number; duplicates: number; decisions: Record<string, number> };
    };
    expect(out.pack).toBe('balanced');
    expect(out.replay).toMatchObject({ missing: 0, duplicates: 0 });
    const f = out.figures;
    const injected = attacks.reduce((n, t) => n + injectedCalls(t).size, 0);
    expect(f.total.injected.calls).toBe(injected);
    expect(f.total.attackRuns).toBe(attacks.length);
    expect(f.total.benign.runs).toBe(benign.length);
    expect(f.others['tau-bench']?.runs).toBe(tau.length);
    const calls = (ts: Trajectory[]) =>
      ts.reduce((n, t) => n + t.steps.filter((s) => s.kind === 'tool_call').length, 0);
    expect(out.benign.calls).toBe(calls(benign) + calls(tau));
    // Benign runs carry no instructions: nothing stopped. The attacks' injected calls are.
    expect(out.benign).toMatchObject({ blocked: 0, held: 0 });
    expect(f.total.injected.blocked + f.total.injected.held).toBeGreaterThan(0);
    // The service's stored decisions are the calls the figures count as stopped.
    const all = [
      f.total.injected,
      f.total.attackOtherCalls,
      f.total.attackFailed,
      f.total.goalAsUserTask,
      f.total.benign,
      ...Object.values(f.others),
    ];
    expect(out.replay.decisions.block ?? 0).toBe(all.reduce((n, c) => n + c.blocked, 0));
    expect(out.replay.decisions.require_approval ?? 0).toBe(all.reduce((n, c) => n + c.held, 0));
    expect(f.missed.length).toBe(injected - f.total.injected.blocked - f.total.injected.held);
  }, 360_000);
});
