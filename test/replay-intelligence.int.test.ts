import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORIES_DIR, readTrajectoryLines, type Trajectory } from '../scripts/replay/trajectories';
import { call, waitFor } from './support/http';
import { startStandaloneOnPostgres, type StandaloneOnPostgres } from './support/standalone-on-postgres';

/**
 * A replayed agent declares its tools, and the intelligence of a conversation in which it used
 * none names the unresolved request (docs/intelligence.md "Failure analysers",
 * `unresolved_request`): real tau-bench trajectories are replayed against `npm start`'s process on
 * PostgreSQL, then the agent's capabilities and the session's intelligence are read back through
 * the API. The same conversation replayed from a file whose agent never called a tool — so whose
 * version declares none, as a plain chat assistant — gets no such item. The lines are picked from
 * ../shared/data/trajectories at run time into temporary files (never committed).
 */
describe('replay: declared tools and the unresolved request, read back through the API', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-replay-intelligence-'));
  const withTools = path.join(dir, 'with-tools.jsonl');
  const alone = path.join(dir, 'alone.jsonl');
  const apiKey = `aw_replay_intel_${newId().replace(/-/g, '')}`;
  let s: StandaloneOnPostgres | undefined;
  let silent: Trajectory | undefined;
  let busy: Trajectory | undefined;

  beforeAll(async () => {
    // A conversation with no tool call, and one of the same agent that called tools.
    for await (const { trajectory: t } of readTrajectoryLines(
      path.join(TRAJECTORIES_DIR, 'tau_bench_airline.jsonl'),
    )) {
      const calls = t.steps.filter((x) => x.kind === 'tool_call').length;
      const users = t.steps.filter((x) => x.kind === 'message' && x.role === 'user').length;
      if (!silent && calls === 0 && users >= 2) silent = t;
      if (!busy && calls >= 3) busy = t;
      if (silent && busy) break;
    }
    if (!silent || !busy) throw new Error('no fitting tau-bench trajectories');
    expect(busy.agent).toBe(silent.agent);
    fs.writeFileSync(withTools, `${JSON.stringify(busy)}\n${JSON.stringify(silent)}\n`);
    // Another namespace of the same line: a separate agent version, whose file shows no tool at all.
    fs.writeFileSync(alone, `${JSON.stringify(silent)}\n\n`);
    s = await startStandaloneOnPostgres(dir, apiKey);
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const get = (p: string) => call(s!.url, 'GET', p, { apiKey });

  /** The action item kinds of the stored intelligence of the session replayed from `trajectory` in `versionId`. */
  async function kindsOf(trajectory: Trajectory, versionId: string): Promise<string[]> {
    const [row] = await s!.prisma.$queryRaw<{ session_id: string }[]>`
      SELECT r.session_id::text FROM runs r JOIN sessions x ON x.project_id = r.project_id AND x.id = r.session_id
      WHERE r.name = ${trajectory.trajectory_id} AND x.agent_version_id = ${versionId}::uuid`;
    expect(row).toBeDefined();
    const intel = await waitFor(async () => {
      const r = await get(`/v1/sessions/${row!.session_id}/intelligence`);
      return r.status === 200 && r.body;
    }, 60_000);
    return intel.actionItems.map((a: { kind: string }) => a.kind);
  }

  test('the agent version lists the tools its trajectories called, and the tool-less conversation is flagged', async () => {
    const summary = await replayFiles({ files: [withTools], baseUrl: s!.url, apiKey, concurrency: 2 });
    expect(summary).toMatchObject({ trajectories: 2, missing: 0, duplicates: 0, incomplete: 0 });
    const [versionId] = summary.agentVersionIds;

    const agents = await get('/v1/agents');
    expect(agents.status).toBe(200);
    const version = agents.body.items
      .flatMap(
        (a: { versions: { id: string; capabilities: { name: string; kind: string }[] }[] }) => a.versions,
      )
      .find((v: { id: string }) => v.id === versionId);
    const called = [...new Set(busy!.steps.filter((x) => x.kind === 'tool_call').map((x) => x.tool))].sort();
    expect(version.capabilities.map((c: { name: string }) => c.name)).toEqual(called);
    expect(version.capabilities.every((c: { kind: string }) => c.kind === 'tool')).toBe(true);

    expect(await kindsOf(silent!, versionId!)).toContain('unresolved_request');
    expect(await kindsOf(busy!, versionId!)).not.toContain('unresolved_request');
  }, 150_000);

  test('the same conversation from an agent version that declared no tools has no such item', async () => {
    const summary = await replayFiles({ files: [alone], baseUrl: s!.url, apiKey });
    expect(summary).toMatchObject({ trajectories: 1, missing: 0, duplicates: 0 });
    const [versionId] = summary.agentVersionIds;
    const agents = await get('/v1/agents');
    const version = agents.body.items
      .flatMap((a: { versions: { id: string; capabilities: unknown[] }[] }) => a.versions)
      .find((v: { id: string }) => v.id === versionId);
    expect(version.capabilities).toEqual([]);
    expect(await kindsOf(silent!, versionId!)).not.toContain('unresolved_request');
  }, 120_000);
});
