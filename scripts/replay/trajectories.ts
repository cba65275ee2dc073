import fs from 'node:fs';
import readline from 'node:readline';

/** One step of a trajectory (format of ../shared/data/trajectories/README.md). */
export interface TrajectoryStep {
  index: number;
  kind: 'tool_call' | 'message';
  role: 'user' | 'assistant';
  content: string | null;
  tool: string | null;
  arguments: Record<string, unknown> | null;
  call_id: string | null;
  result: string | null;
  error: string | null;
  executed: boolean | null;
  truncated?: boolean;
}

/** One logged agent run. */
export interface Trajectory {
  trajectory_id: string;
  agent: string;
  task: string;
  domain: string;
  n_steps: number;
  n_tool_calls: number;
  labels: Record<string, unknown>;
  meta: Record<string, unknown>;
  steps: TrajectoryStep[];
}

/** Streams the trajectories of a JSONL file, one per line; throws naming the line when one is not JSON. */
export async function* readTrajectories(file: string): AsyncGenerator<Trajectory> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n += 1;
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line) as Trajectory;
    } catch (err) {
      throw new Error(`${file}:${n}: not a JSON trajectory: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** An agent key from a logged agent name: `claude-3-5-sonnet-20241022 @ AgentDojo` → `claude-3-5-sonnet-20241022-agentdojo`. */
export function agentKeyOf(agent: string): string {
  const k = agent
    .toLowerCase()
    .replace(/[^a-z0-9._:/-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (k || 'agent').slice(0, 128);
}
