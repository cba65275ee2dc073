import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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

/** Folder of the shared trajectory files (../shared/data/trajectories from the repository root; never copied). */
export const TRAJECTORIES_DIR = path.resolve(__dirname, '../../../shared/data/trajectories');

/** One JSONL line (1-based `n`) as a trajectory; throws naming the file and line when it is not JSON. */
function parseTrajectory(line: string, file: string, n: number): Trajectory {
  try {
    return JSON.parse(line) as Trajectory;
  } catch (err) {
    throw new Error(`${file}:${n}: not a JSON trajectory: ${(err as Error).message}`, { cause: err });
  }
}

/** Streams the trajectories of a JSONL file with their 1-based line; throws naming the line when one is not JSON. */
export async function* readTrajectoryLines(
  file: string,
): AsyncGenerator<{ trajectory: Trajectory; line: number }> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n += 1;
    if (line.trim() !== '') yield { trajectory: parseTrajectory(line, file, n), line: n };
  }
}

/** {@link toolNamesByAgent} of a JSONL file, streamed (only each call's tool name is kept in memory). */
export async function toolNamesByAgentInFile(file: string): Promise<Map<string, string[]>> {
  const slim: { agent: string; steps: Pick<TrajectoryStep, 'kind' | 'tool'>[] }[] = [];
  for await (const { trajectory: t } of readTrajectoryLines(file))
    slim.push({
      agent: t.agent,
      steps: t.steps.filter((s) => s.kind === 'tool_call').map((s) => ({ kind: s.kind, tool: s.tool })),
    });
  return toolNamesByAgent(slim);
}

/** Streams the trajectories of a JSONL file, one per line; throws naming the line when one is not JSON. */
export async function* readTrajectories(file: string): AsyncGenerator<Trajectory> {
  for await (const { trajectory } of readTrajectoryLines(file)) yield trajectory;
}

/** SHA-256 (hex) of a file's bytes and its number of non-blank lines (= trajectories), in one read. */
export async function scanFile(file: string): Promise<{ digest: string; trajectories: number }> {
  const hash = createHash('sha256');
  let trajectories = 0;
  let blank = true;
  for await (const chunk of fs.createReadStream(file)) {
    const b = chunk as Buffer;
    hash.update(b);
    for (const byte of b) {
      if (byte === 0x0a) {
        if (!blank) trajectories += 1;
        blank = true;
      } else if (byte !== 0x20 && byte !== 0x0d && byte !== 0x09) blank = false;
    }
  }
  if (!blank) trajectories += 1;
  return { digest: hash.digest('hex'), trajectories };
}

/**
 * Every trajectory of a JSONL file, read at once (the shared files are a few MB); a relative
 * `file` is taken in {@link TRAJECTORIES_DIR}. Throws naming the line when one is not JSON.
 */
export function loadTrajectories(file: string): Trajectory[] {
  const full = path.isAbsolute(file) ? file : path.join(TRAJECTORIES_DIR, file);
  const out: Trajectory[] = [];
  fs.readFileSync(full, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() !== '') out.push(parseTrajectory(line, full, i + 1));
    });
  return out;
}

/**
 * The tools each logged agent used, by agent key ({@link agentKeyOf}): the sorted names of every
 * tool call of its trajectories. The replay declares them as the agent version's capabilities
 * (a trajectory that called no tool still belongs to an agent that has these tools).
 */
export function toolNamesByAgent(
  trajectories: Iterable<{ agent: string; steps: readonly Pick<TrajectoryStep, 'kind' | 'tool'>[] }>,
): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const t of trajectories) {
    const key = agentKeyOf(t.agent);
    const set = sets.get(key) ?? new Set<string>();
    sets.set(key, set);
    for (const s of t.steps) if (s.kind === 'tool_call' && s.tool) set.add(s.tool);
  }
  return new Map([...sets].map(([k, v]) => [k, [...v].sort()]));
}

/** An agent key from a logged agent name: `claude-3-5-sonnet-20241022 @ AgentDojo` → `claude-3-5-sonnet-20241022-agentdojo`. */
export function agentKeyOf(agent: string): string {
  const k = agent
    .toLowerCase()
    .replace(/[^a-z0-9._:/-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (k || 'agent').slice(0, 128);
}
