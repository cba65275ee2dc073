import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { newId } from '@agent-warden/contracts';
import { replayFiles } from '../scripts/replay/replay';
import type { Trajectory } from '../scripts/replay/trajectories';
import { call } from './support/http';
import { startStandalone, type StandaloneProcess } from './support/standalone';

const ROOT = path.resolve(__dirname, '..');

/** A free TCP port: the service must come back on the same URL the replay is sending to. */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** `n` generated trajectories (messages, tool calls with results, every fifth call failing). */
function generatedTrajectories(n: number, tag: string): { lines: string; toolCalls: number } {
  let toolCalls = 0;
  const out: Trajectory[] = [];
  for (let i = 0; i < n; i++) {
    const steps: Trajectory['steps'] = [];
    const calls = 2 + (i % 4);
    steps.push(step(steps.length, { kind: 'message', role: 'user', content: `task ${i} of ${tag}` }));
    for (let c = 0; c < calls; c++) {
      const fails = (i + c) % 5 === 0;
      steps.push(
        step(steps.length, {
          kind: 'tool_call',
          role: 'assistant',
          tool: c % 2 ? 'lookup_order' : 'send_note',
          arguments: { order: `o-${i}-${c}` },
          result: fails ? null : `result ${i}/${c}`,
          error: fails ? 'upstream timed out' : null,
        }),
      );
      steps.push(step(steps.length, { kind: 'message', role: 'assistant', content: `step ${c} done` }));
    }
    toolCalls += calls;
    out.push({
      trajectory_id: `generated/${tag}/${i}`,
      agent: 'generated-agent @ replay-resume test',
      task: `task ${i}`,
      domain: 'test',
      n_steps: steps.length,
      n_tool_calls: calls,
      labels: {},
      meta: {},
      steps,
    });
  }
  return { lines: out.map((t) => JSON.stringify(t)).join('\n') + '\n', toolCalls };
}

function step(index: number, s: Partial<Trajectory['steps'][number]>): Trajectory['steps'][number] {
  return {
    index,
    kind: 'message',
    role: 'assistant',
    content: null,
    tool: null,
    arguments: null,
    call_id: null,
    result: null,
    error: null,
    executed: true,
    ...s,
  };
}

/** `npm run replay` as its own process; resolves with its exit code, summary line and stderr. */
function replayCli(
  args: string[],
  onStderrLine?: (line: string, child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; summary: Record<string, unknown>; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/replay/cli.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr += line + '\n';
    onStderrLine?.(line, child);
  });
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').pop() || '{}'; // none after a SIGKILL
      resolve({ code, summary: JSON.parse(last) as Record<string, unknown>, stderr });
    }),
  );
}

/**
 * `npm run replay` survives restarts (issue 12): deterministic ids per trajectory, retries while the
 * service is down, a re-run that completes and never doubles, and a summary even after Ctrl-C.
 */
describe('replay: resumable across service restarts and interruptions', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-replay-resume-'));
  const fileA = path.join(dataDir, 'generated-a.jsonl');
  const fileB = path.join(dataDir, 'generated-b.jsonl');
  const fileC = path.join(dataDir, 'generated-c.jsonl');
  const apiKey = `aw_replay_resume_${newId().replace(/-/g, '')}`;
  let env: Record<string, string>;
  let s: StandaloneProcess | undefined;
  let storedAfterA: { events: number; decisions: Record<string, number> };
  const a = generatedTrajectories(60, 'a');
  const b = generatedTrajectories(60, 'b');
  const c = generatedTrajectories(60, 'c');

  beforeAll(async () => {
    fs.writeFileSync(fileA, a.lines);
    fs.writeFileSync(fileB, b.lines);
    fs.writeFileSync(fileC, c.lines);
    env = {
      WARDEN_DATA_DIR: path.join(dataDir, 'warden'),
      WARDEN_INIT_API_KEY: apiKey,
      PORT: String(await freePort()),
    };
    s = await startStandalone(env);
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('the service is SIGKILLed mid-replay and restarted: the replay waits, then finishes with missing 0 and duplicates 0', async () => {
    let restarted: Promise<void> | undefined;
    const summary = await replayFiles({
      files: [fileA],
      baseUrl: s!.url,
      apiKey,
      concurrency: 4,
      onTrajectory: (done) => {
        if (done !== 12 || restarted) return;
        restarted = (async () => {
          const exited = new Promise((r) => s!.child.once('exit', r));
          s!.child.kill('SIGKILL');
          await exited;
          s = await startStandalone(env);
        })();
      },
    });
    await restarted;
    expect(restarted).toBeDefined();
    expect(summary).toMatchObject({
      trajectories: 60,
      skipped: 0,
      missing: 0,
      duplicates: 0,
      incomplete: 0,
      events_unsent: 0,
      interrupted: false,
    });
    expect(summary.client.retries).toBeGreaterThan(0); // it did wait for the service
    expect(summary.client).toMatchObject({ dropped: 0, failed: 0, rejected: 0 });
    // Read back: one session per trajectory, every tool call evaluated once.
    const stats = await call(
      s!.url,
      'GET',
      `/v1/stats/events?agentVersionId=${summary.agentVersionIds.join(',')}`,
      {
        apiKey,
      },
    );
    expect(stats.body).toMatchObject({ sessions: 60, duplicates: 0, events: summary.events_sent });
    expect(stats.body.byType['agent.tool.started']).toBe(a.toolCalls);
    expect(stats.body.decisions).toEqual({ allow: a.toolCalls });
    storedAfterA = { events: stats.body.events, decisions: stats.body.decisions };
  }, 300_000);

  test('a second run of the same file adds nothing', async () => {
    const summary = await replayFiles({ files: [fileA], baseUrl: s!.url, apiKey, concurrency: 4 });
    expect(summary).toMatchObject({
      trajectories: 60,
      skipped: 60,
      events_sent: 0,
      missing: 0,
      duplicates: 0,
    });
    const stats = await call(
      s!.url,
      'GET',
      `/v1/stats/events?agentVersionId=${summary.agentVersionIds.join(',')}`,
      {
        apiKey,
      },
    );
    expect({ events: stats.body.events, decisions: stats.body.decisions }).toEqual(storedAfterA);
  }, 120_000);

  test('Ctrl-C still prints the JSON summary and exits non-zero; the next run completes the job without doubles', async () => {
    const args = ['--url', s!.url, '--api-key', apiKey, '--concurrency', '2', fileB];
    let sent = false;
    const first = await replayCli(args, (line, child) => {
      // Plain progress lines on stderr (not a terminal): interrupt once some trajectories are done.
      const m = line.match(/^replay: (\d+)\/60 trajectories/);
      if (!sent && m && Number(m[1]) >= 1) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(first.code).toBe(130);
    expect(first.summary).toMatchObject({ interrupted: true, duplicates: 0, missing: 0 });
    expect(first.summary.incomplete as number).toBeGreaterThan(0);
    expect(first.summary.trajectories as number).toBeLessThan(60);

    const second = await replayCli(args);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({
      trajectories: 60,
      skipped: first.summary.trajectories,
      missing: 0,
      duplicates: 0,
      incomplete: 0,
      interrupted: false,
    });
    expect(second.summary.events_expected).toBe(second.summary.events_stored);
    const replayed = await replayFiles({ files: [fileB], baseUrl: s!.url, apiKey });
    const stats = await call(
      s!.url,
      'GET',
      `/v1/stats/events?agentVersionId=${replayed.agentVersionIds.join(',')}`,
      {
        apiKey,
      },
    );
    expect(stats.body).toMatchObject({ sessions: 60, duplicates: 0, events: second.summary.events_stored });
    expect(stats.body.decisions).toEqual({ allow: b.toolCalls });
  }, 300_000);

  test('the replay itself is SIGKILLed mid-run: the next run completes it, every tool call evaluated once', async () => {
    const args = ['--url', s!.url, '--api-key', apiKey, '--concurrency', '4', fileC];
    let killed = false;
    await replayCli(args, (line, child) => {
      const m = line.match(/^replay: (\d+)\/60 trajectories/);
      if (!killed && m && Number(m[1]) >= 1) {
        killed = true;
        child.kill('SIGKILL'); // no summary, events in its queue lost: what a crash leaves
      }
    });
    expect(killed).toBe(true);
    const second = await replayCli(args);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({ trajectories: 60, missing: 0, duplicates: 0, incomplete: 0 });
    // Evaluations the killed run recorded but never reported as events are not recorded twice
    // (the tool call's id is the evaluation's Idempotency-Key).
    const versions = (await replayFiles({ files: [fileC], baseUrl: s!.url, apiKey })).agentVersionIds;
    const stats = await call(s!.url, 'GET', `/v1/stats/events?agentVersionId=${versions.join(',')}`, {
      apiKey,
    });
    expect(stats.body).toMatchObject({ sessions: 60, duplicates: 0, events: second.summary.events_stored });
    expect(stats.body.byType['agent.tool.started']).toBe(c.toolCalls);
    expect(stats.body.decisions).toEqual({ allow: c.toolCalls });
  }, 300_000);

  test('evaluate with the same Idempotency-Key records one evaluation; without one, each request does', async () => {
    const id = await call(s!.url, 'POST', '/v1/agents/identify', {
      apiKey,
      body: { agent: { key: 'idempotency-test' }, version: { version: '1' } },
    });
    const { agentId, agentVersionId } = id.body as { agentId: string; agentVersionId: string };
    const evaluate = (headers: Record<string, string> = {}) =>
      call(s!.url, 'POST', '/v1/guardrails/evaluate', {
        apiKey,
        headers,
        body: { agentId, agentVersionId, sessionId: newId(), mode: 'monitor', tool: { name: 'lookup' } },
      });
    const key = newId();
    const first = await evaluate({ 'idempotency-key': key });
    const retried = await evaluate({ 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(retried.body.evaluationId).toBe(first.body.evaluationId);
    const decisions = async () =>
      (await call(s!.url, 'GET', `/v1/stats/events?agentVersionId=${agentVersionId}`, { apiKey })).body
        .decisions;
    expect(await decisions()).toEqual({ allow: 1 });
    await evaluate();
    await evaluate();
    expect(await decisions()).toEqual({ allow: 3 });
  }, 60_000);
});
