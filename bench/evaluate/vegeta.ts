import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLoopResult, type OpenLoopResult } from './open-loop';

/**
 * Load from vegeta (https://github.com/tsenart/vegeta, `go install github.com/tsenart/vegeta/v12@v12.13.0`),
 * a constant-rate HTTP load generator in Go: an alternative to this process's own open loop
 * (`open-loop.ts`) whose latencies also hold the load generator's own pauses (V8 garbage collection
 * on Node.js 24: docs/benchmarks.md "Guardrail evaluation: findings").
 * Vegeta sends each request at its scheduled time from a pool of goroutines (open loop; it adds
 * workers rather than wait for answers) and reports each request's latency from its send.
 */

/** The vegeta binary: `$VEGETA_BIN`, else `vegeta` on PATH, else `~/go/bin/vegeta`; undefined when none runs. */
export function findVegeta(): string | undefined {
  const candidates = [
    process.env.VEGETA_BIN,
    'vegeta',
    path.join(process.env.GOPATH ?? path.join(os.homedir(), 'go'), 'bin', 'vegeta'),
  ].filter((c): c is string => !!c);
  for (const c of candidates) {
    const r = spawnSync(c, ['-version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return undefined;
}

/** CPU seconds (user + system) of this process's children that have ended and been waited for (Linux /proc), or NaN. */
function endedChildrenCpuSeconds(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // cutime and cstime are fields 16 and 17 (man 5 proc), counted in USER_HZ ticks (100 / s).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Writes vegeta's JSON targets (one line per body, round robin) for `POST url`; returns the file's path. */
export function writeTargets(
  dir: string,
  name: string,
  url: string,
  headers: Record<string, string>,
  bodies: string[],
): string {
  const header = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  const file = path.join(dir, `${name}.targets.jsonl`);
  fs.writeFileSync(
    file,
    bodies
      .map((b) => JSON.stringify({ method: 'POST', url, header, body: Buffer.from(b).toString('base64') }))
      .join('\n') + '\n',
  );
  return file;
}

/**
 * One constant-rate attack of `durationMs` at `rate` requests/s on the targets in `targetsFile`,
 * with keep-alive connections; `onStart(pid)` is called once vegeta runs (CPU accounting).
 * Resolves with the latencies of every request (ms, from its send to the end of its answer) and
 * the CPU seconds vegeta used (its `attack` and `encode` processes).
 * @throws Error when vegeta fails or a request is answered with anything but 200 is counted in `errors`.
 */
export async function vegetaAttack(o: {
  bin: string;
  targetsFile: string;
  rate: number;
  durationMs: number;
  onStart?: (pid: number) => void;
}): Promise<OpenLoopResult & { cpuSeconds: number }> {
  const cpu0 = endedChildrenCpuSeconds();
  const attack = spawn(
    o.bin,
    [
      'attack',
      '-format=json',
      `-targets=${o.targetsFile}`,
      `-rate=${o.rate}/1s`,
      `-duration=${o.durationMs}ms`,
      '-keepalive=true',
      '-workers=16',
      '-max-workers=512',
      '-timeout=10s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  o.onStart?.(attack.pid!);
  const encode = spawn(o.bin, ['encode', '-to=csv'], { stdio: ['pipe', 'pipe', 'pipe'] });
  attack.stdout.pipe(encode.stdin);
  let stderr = '';
  attack.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let csv = '';
  encode.stdout.on('data', (c: Buffer) => (csv += c.toString()));
  const exited = (p: ChildProcess) => new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
  const [a, e] = await Promise.all([exited(attack), exited(encode)]);
  const cpuSeconds = endedChildrenCpuSeconds() - cpu0;
  if (a !== 0 || e !== 0) throw new Error(`vegeta exited with ${a}/${e}: ${stderr.slice(0, 500)}`);
  // CSV columns: timestamp (ns), status code, latency (ns), bytes out, bytes in, error, body (base64), attack, seq, method, url, headers.
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  for (const line of csv.split('\n')) {
    if (!line) continue;
    const cols = line.split(',');
    const code = Number(cols[1]);
    latencies.push(Number(cols[2]) / 1e6);
    if (code !== 200) {
      errors += 1;
      firstError ??= `HTTP ${code} ${cols[5] ?? ''}`.trim();
    }
  }
  return {
    cpuSeconds,
    // Vegeta measures from the send, so the service time is the latency; it reports no in-flight count.
    ...openLoopResult({
      rate: o.rate,
      seconds: o.durationMs / 1000,
      latencies,
      serviceTimes: latencies,
      errors,
      firstError,
      maxInFlight: Number.NaN,
    }),
  };
}
