import type { Trajectory, TrajectoryStep } from '../../replay/trajectories';

/** A tool call step (values invented for the tests, none from the shared data). */
export function call(
  index: number,
  tool: string,
  args: Record<string, unknown>,
  result = 'ok',
): TrajectoryStep {
  return {
    index,
    kind: 'tool_call',
    role: 'assistant',
    content: null,
    tool,
    arguments: args,
    call_id: null,
    result,
    error: null,
    executed: true,
  };
}

/** An AgentDojo-shaped trajectory: `kind` picks the labels. */
export function trajectory(
  id: string,
  kind: 'succeeded' | 'failed' | 'benign' | 'goal',
  steps: TrajectoryStep[],
  o: { task?: string; payload?: string; domain?: string; source?: string } = {},
): Trajectory {
  const attack = kind === 'succeeded' || kind === 'failed';
  return {
    trajectory_id: `${o.source ?? 'agentdojo'}/model/${o.domain ?? 'banking'}/${id}`,
    agent: 'model @ test',
    task: o.task ?? 'Pay my electricity bill.',
    domain: o.domain ?? 'banking',
    n_steps: steps.length,
    n_tool_calls: steps.length,
    labels: {
      is_injection_attack: attack,
      attack_succeeded: attack ? kind === 'succeeded' : null,
      user_task_is_injection_goal: kind === 'goal',
      injection_payload_example: attack ? (o.payload ?? '') : undefined,
    },
    meta: {},
    steps,
  };
}
