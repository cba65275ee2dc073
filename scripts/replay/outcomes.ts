import type { ScoreInput } from '@agent-warden/client';
import type { Trajectory } from './trajectories';

/** Where each score of a trajectory's recorded outcome comes from (../shared/data/trajectories/README.md). */
const BOOLEAN_LABELS = [
  // tau-bench: reward == 1.
  'task_succeeded',
  // AgentDojo: its `utility`.
  'user_task_succeeded',
  // AgentDojo: its `security`, true when the injection's goal was achieved; null without an attack.
  'attack_succeeded',
] as const;

/**
 * The scores that say how a trajectory ended, as its source recorded it (docs/architecture.md#scores),
 * each `source: 'rule'` (the benchmark's own check): tau-bench `reward` (numeric) and
 * `task_succeeded`; AgentDojo `user_task_succeeded` and `attack_succeeded` (booleans, when present:
 * `attack_succeeded` is null without an attack and then left out); SWE-agent `exit_status`
 * (categorical, e.g. `submitted`, from `labels` or `meta`). Labels of another type are left out.
 */
export function outcomeScores(t: Trajectory): ScoreInput[] {
  const labels = t.labels ?? {};
  const scores: ScoreInput[] = [];
  const comment = (label: string) => `recorded outcome of the trajectory (labels.${label})`;
  if (typeof labels.reward === 'number' && Number.isFinite(labels.reward))
    scores.push({ name: 'reward', value: labels.reward, source: 'rule', comment: comment('reward') });
  for (const name of BOOLEAN_LABELS) {
    const v = labels[name];
    if (typeof v === 'boolean') scores.push({ name, value: v, source: 'rule', comment: comment(name) });
  }
  const exit = labels.exit_status ?? t.meta?.exit_status;
  if (typeof exit === 'string' && exit.length > 0)
    scores.push({
      name: 'exit_status',
      value: exit,
      source: 'rule',
      comment: `recorded outcome of the trajectory (${labels.exit_status !== undefined ? 'labels' : 'meta'}.exit_status)`,
    });
  return scores;
}
