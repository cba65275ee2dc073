import { newId, type AgentEvent } from '@agent-warden/contracts';
import type { Trajectory } from '../../scripts/replay/trajectories';
import { startTestStack } from '../../test/support/stack';
import type { Cleanup } from '../lib/cleanup';
import { cpuWindow, type CpuWindow } from '../lib/cpu';
import { identifyAgents, postEvents } from '../lib/http';
import { percentile, sleep } from '../lib/stats';
import { agentsOf, eventsBody, EventStream, type AgentIds } from '../lib/workload';

/** Settings of part 3. */
export interface VisibilityBenchOptions {
  /** Offered background load, events/s (open loop: batches are sent on schedule, not on answers). */
  eventsPerSecond: number;
  batchSize: number;
  /** Background load before the first probe, ms. */
  warmupMs: number;
  probes: number;
  /** One probe every this many ms. */
  probeIntervalMs: number;
  /** Pause between the end of one poll and the start of the next, ms. */
  pollMs: number;
  /** `limit` of each poll request (the poller pages back to the oldest probe still awaited). */
  pollLimit: number;
  /** Longest wait for the last probes after the load stopped, ms. */
  settleMs: number;
  /** Most background requests in flight; beyond it a due batch is skipped (counted). */
  maxInFlight: number;
}

/** Results of part 3. */
export interface VisibilityBenchResult {
  options: VisibilityBenchOptions;
  /** Background events accepted (202) per second over the probe window. */
  acceptedPerSecond: number;
  loadErrors: number;
  skippedBatches: number;
  loadPostP50Ms: number;
  loadPostP95Ms: number;
  probesSent: number;
  probesSeen: number;
  /**
   * 202 → first poll answer holding the probe (upper bound of the visibility time), ms; a probe
   * never seen within `settleMs` counts as Infinity.
   */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** 202 → start of that poll (lower bound), ms. */
  lowerP50Ms: number;
  lowerP95Ms: number;
  /** Mean time between two poll answers, ms (the resolution of the measurement). */
  pollPeriodMs: number;
  /** The probe's own POST (send → 202), ms. */
  probePostP50Ms: number;
  /** Median visibility of the first and of the last quarter of the probes (a growing lag shows), ms. */
  firstQuarterP50Ms: number;
  lastQuarterP50Ms: number;
  /** Events accepted (202) but not yet stored when the last probe was sent. */
  backlogAtEnd: number;
  cpu: CpuWindow;
}

/**
 * Part 3: on the real stack (`startTestStack`: fresh database, gateway + api in this process,
 * the projector as shipped — `services/projector/src/main.ts` — as a child process), offers a
 * steady background load of realistic events at a fixed rate, and sends probes — one
 * `agent.custom` event each, in a session of its own, in its own `POST /v1/events`. For each probe
 * it measures the time from the POST's 202 to the first answer of
 * `GET /v1/events?type=agent.custom` (api, polled continuously by one poller) that lists it.
 */
export async function benchVisibility(
  trajectories: Trajectory[],
  o: VisibilityBenchOptions,
  cleanup: Cleanup,
  log: (msg: string) => void,
): Promise<VisibilityBenchResult> {
  const stack = await startTestStack({ projector: false });
  cleanup.add('stop the stack', () => stack.stop());
  const projectorPid = (await stack.startProjector()).child.pid!;
  const agents = await identifyAgents(stack.gatewayUrl, stack.apiKey, agentsOf(trajectories));
  const stream = new EventStream(trajectories, agents);
  const probeAgent: AgentIds = agents.values().next().value!;

  const headers = { authorization: `Bearer ${stack.apiKey}` };
  const probeEvent = (n: number): AgentEvent => ({
    id: newId(),
    type: 'agent.custom',
    time: new Date().toISOString(),
    sessionId: newId(),
    agentId: probeAgent.agentId,
    agentVersionId: probeAgent.agentVersionId,
    sequence: 1,
    data: { name: 'bench.probe', data: { n } },
  });
  // Ids of the stored probes, newest first, paging back until events older than `oldestMs` (the
  // oldest probe still awaited): when many probes land at once, none is skipped.
  const visibleIds = async (oldestMs: number): Promise<Set<string>> => {
    const ids = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await fetch(`${stack.apiUrl}/v1/events?type=agent.custom&limit=${o.pollLimit}${q}`, {
        headers,
      });
      if (res.status !== 200) throw new Error(`GET /v1/events: HTTP ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { items: { id: string; time: string }[]; nextCursor: string | null };
      for (const e of body.items) ids.add(e.id);
      const last = body.items.at(-1);
      if (!body.nextCursor || !last || Date.parse(last.time) < oldestMs) break;
      cursor = body.nextCursor;
    }
    return ids;
  };

  // Wait until the projector has joined and stores events (one probe end to end).
  const first = probeEvent(0);
  await postEvents(stack.gatewayUrl, stack.apiKey, eventsBody([first]));
  const readyBy = Date.now() + 60_000;
  while (!(await visibleIds(Date.parse(first.time))).has(first.id)) {
    if (Date.now() > readyBy) throw new Error('the projector stored nothing within 60 s');
    await sleep(100);
  }
  log('stack ready; starting the background load');

  // Background load: open loop at a fixed rate.
  const perBatchMs = (1000 * o.batchSize) / o.eventsPerSecond;
  let inFlight = 0;
  let due = 0;
  let skippedBatches = 0;
  let loadErrors = 0;
  let accepted = 0;
  let acceptedTotal = 1; // the readiness probe
  let countFrom = Number.POSITIVE_INFINITY;
  let countTo = Number.POSITIVE_INFINITY;
  const loadLatencies: number[] = [];
  const loadStart = performance.now();
  const fire = () => {
    const body = eventsBody(stream.take(o.batchSize));
    if (inFlight >= o.maxInFlight) {
      skippedBatches += 1;
      return;
    }
    inFlight += 1;
    const t0 = performance.now();
    postEvents(stack.gatewayUrl, stack.apiKey, body)
      .then(
        (n) => {
          const t1 = performance.now();
          acceptedTotal += n;
          if (t1 >= countFrom && t1 <= countTo) accepted += n;
          loadLatencies.push(t1 - t0);
        },
        () => (loadErrors += 1),
      )
      .finally(() => (inFlight -= 1));
  };
  const ticker = setInterval(() => {
    const target = Math.floor((performance.now() - loadStart) / perBatchMs);
    while (due < target) {
      due += 1;
      fire();
    }
  }, 5);
  cleanup.add('stop the background load', async () => clearInterval(ticker));
  await sleep(o.warmupMs);

  // Probes and the poller.
  const endCpu = cpuWindow({ 'bench (gateway + api + load)': process.pid, projector: projectorPid }, [
    'projector',
  ]);
  countFrom = performance.now();
  /** Probes accepted and not yet seen: id → when the 202 arrived, the probe's event time, its number. */
  const outstanding = new Map<string, { t202: number; timeMs: number; n: number }>();
  const byProbe: { n: number; ms: number }[] = [];
  const upper: number[] = [];
  const lower: number[] = [];
  const probePosts: number[] = [];
  let probesSent = 0;
  let sending = true;
  let settleBy = Number.POSITIVE_INFINITY;
  let backlogAtEnd = Number.NaN;
  const sender = (async () => {
    for (let n = 1; n <= o.probes; n += 1) {
      const next = countFrom + n * o.probeIntervalMs;
      const e = probeEvent(n);
      const t0 = performance.now();
      try {
        await postEvents(stack.gatewayUrl, stack.apiKey, eventsBody([e]));
        const t202 = performance.now();
        outstanding.set(e.id, { t202, timeMs: Date.parse(e.time), n });
        probePosts.push(t202 - t0);
        probesSent += 1;
        acceptedTotal += 1;
      } catch (err) {
        log(`probe ${n} failed: ${(err as Error).message}`);
      }
      await sleep(Math.max(0, next - performance.now()));
    }
    countTo = performance.now();
    const stored = await stack.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM events`;
    backlogAtEnd = acceptedTotal - Number(stored[0]?.n ?? 0);
    settleBy = performance.now() + o.settleMs;
    sending = false;
  })();
  let polls = 0;
  let firstPoll = 0;
  let lastPoll = 0;
  while (sending || (outstanding.size > 0 && performance.now() < settleBy)) {
    const tReq = performance.now();
    const ids = await visibleIds(Math.min(...[...outstanding.values()].map((x) => x.timeMs)));
    const tRes = performance.now();
    if (polls === 0) firstPoll = tRes;
    lastPoll = tRes;
    polls += 1;
    for (const [id, p] of outstanding)
      if (ids.has(id)) {
        upper.push(tRes - p.t202);
        byProbe.push({ n: p.n, ms: tRes - p.t202 });
        lower.push(Math.max(0, tReq - p.t202));
        outstanding.delete(id);
      }
    await sleep(o.pollMs);
  }
  await sender;
  const cpu = endCpu();
  for (const _ of outstanding) upper.push(Number.POSITIVE_INFINITY); // never seen within settleMs
  clearInterval(ticker);
  const windowSeconds = (countTo - countFrom) / 1000;
  return {
    options: o,
    acceptedPerSecond: accepted / windowSeconds,
    loadErrors,
    skippedBatches,
    loadPostP50Ms: percentile(loadLatencies, 50),
    loadPostP95Ms: percentile(loadLatencies, 95),
    probesSent,
    probesSeen: byProbe.length,
    p50Ms: percentile(upper, 50),
    p95Ms: percentile(upper, 95),
    maxMs: Math.max(...upper), // Infinity when a probe was never seen
    lowerP50Ms: percentile(lower, 50),
    lowerP95Ms: percentile(lower, 95),
    pollPeriodMs: polls > 1 ? (lastPoll - firstPoll) / (polls - 1) : Number.NaN,
    probePostP50Ms: percentile(probePosts, 50),
    firstQuarterP50Ms: percentile(
      byProbe.filter((p) => p.n <= o.probes / 4).map((p) => p.ms),
      50,
    ),
    lastQuarterP50Ms: percentile(
      byProbe.filter((p) => p.n > (3 * o.probes) / 4).map((p) => p.ms),
      50,
    ),
    backlogAtEnd,
    cpu,
  };
}
