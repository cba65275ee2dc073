import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/env';

/** Env var naming another folder of trajectory files (`*.jsonl`). */
export const TRAJECTORIES_ENV = 'WARDEN_TRAJECTORIES_DIR';

/** A real tool call of the shared data: its tool, arguments and result text. */
export interface ToolSample {
  tool: string;
  arguments: Record<string, unknown>;
  result: string;
}

/** A real message of the shared data. */
export interface MessageSample {
  role: 'user' | 'assistant';
  content: string;
}

/** What the benchmark replays, read in place (never copied). */
export interface Workload {
  dir: string;
  files: string[];
  tools: ToolSample[];
  messages: MessageSample[];
  /** Tool calls with at least one string or number argument (what a guarded call would carry). */
  guarded: ToolSample[];
}

interface Step {
  kind: string;
  role?: string;
  content?: unknown;
  tool?: string | null;
  arguments?: Record<string, unknown> | null;
  result?: unknown;
}

/**
 * Reads the tool calls and messages of every `*.jsonl` in `$WARDEN_TRAJECTORIES_DIR` (default
 * `../shared/data/trajectories` from the repository root). Throws naming the folder when it has no
 * file or no tool result.
 */
export function loadWorkload(): Workload {
  const dir = path.resolve(ROOT, process.env[TRAJECTORIES_ENV] ?? '../shared/data/trajectories');
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
  } catch (err) {
    throw new Error(`cannot read the trajectories in ${dir} (set ${TRAJECTORIES_ENV})`, { cause: err });
  }
  const tools: ToolSample[] = [];
  const messages: MessageSample[] = [];
  for (const f of files) {
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const steps = (JSON.parse(line) as { steps?: Step[] }).steps ?? [];
      for (const s of steps) {
        if (s.kind === 'tool_call' && typeof s.tool === 'string' && s.result != null) {
          const result = typeof s.result === 'string' ? s.result : JSON.stringify(s.result);
          tools.push({ tool: s.tool, arguments: s.arguments ?? {}, result });
        } else if (s.kind === 'message' && (s.role === 'user' || s.role === 'assistant')) {
          if (typeof s.content === 'string' && s.content !== '')
            messages.push({ role: s.role, content: s.content });
        }
      }
    }
  }
  if (tools.length === 0) throw new Error(`no tool results in ${dir} (set ${TRAJECTORIES_ENV})`);
  const guarded = tools.filter((t) =>
    Object.values(t.arguments).some((v) => typeof v === 'string' || typeof v === 'number'),
  );
  return { dir, files, tools, messages, guarded };
}
