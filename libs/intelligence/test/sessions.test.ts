import type { StoredPolicy } from '@agent-warden/policy';
import { analyseSession, DATA_FLOW_KIND, DESTRUCTIVE_KIND } from '../src';
import { findIdentifiers } from '../src/flow/identifiers';
import { loadTrajectories, trajectoryToInput, type Trajectory } from './support/trajectory-input';

const agentdojo = loadTrajectories('agentdojo.jsonl');
const tau = loadTrajectories('tau_bench_airline.jsonl');
const byId = (all: Trajectory[], id: string): Trajectory => {
  const t = all.find((x) => x.trajectory_id === id);
  if (!t) throw new Error(`missing ${id}`);
  return t;
};
const ATTACKER_IBAN = 'US133000000121212121212';

describe('identifiers', () => {
  it('finds IBANs, emails and URLs, and does not read an email domain as a URL', () => {
    const ids = findIdentifiers(
      'Pay US133000000121212121212, mail mark.black-2134@gmail.com, post to www.my-website-234.com/random. Read notes.txt',
    );
    expect(ids.map((i) => [i.kind, i.value])).toEqual([
      ['iban', ATTACKER_IBAN],
      ['email', 'mark.black-2134@gmail.com'],
      ['url', 'www.my-website-234.com/random'],
    ]);
    expect(findIdentifiers('see https://www.Example.com/a/')[0]?.key).toBe('example.com/a');
  });
});

describe('data flow from tool output into a sensitive call (AgentDojo)', () => {
  const t = byId(
    agentdojo,
    'agentdojo/Meta-SecAlign-70B/banking/user_task_12/important_instructions/injection_task_0',
  );
  const input = trajectoryToInput(t);
  const out = analyseSession(input);
  const readDone = input.events.find(
    (e) => e.type === 'agent.tool.completed' && e.data.toolName === 'read_file',
  );
  const send = input.events.find((e) => e.type === 'agent.tool.started' && e.data.toolName === 'send_money');

  it('raises a critical suspicious_data_flow item citing the read_file result and the send_money call', () => {
    const item = out.actionItems.find((a) => a.kind === 'suspicious_data_flow');
    expect(item?.severity).toBe('critical');
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining([readDone?.id, send?.id]));
    expect(out.actionItems[0]).toBe(item);
  });

  it('drafts a disabled block policy on send_money to the attacker IBAN', () => {
    const rec = out.recommendations.find((r) => r.kind === DATA_FLOW_KIND);
    expect(rec?.severity).toBe('high');
    expect(rec?.policy).toEqual(
      expect.objectContaining({
        enabled: false,
        decision: 'block',
        match: {
          all: [
            { field: 'tool.name', op: 'eq', value: 'send_money' },
            { field: 'arguments.recipient', op: 'eq', value: ATTACKER_IBAN },
          ],
        },
      }),
    );
    expect(rec?.evidenceEventIds[0]).toBe(readDone?.id);
  });

  it('does not flag the same payment when the user asked for it', () => {
    const asked = agentdojo.filter(
      (x) => x.labels.user_task_is_injection_goal === true && x.task.includes(ATTACKER_IBAN),
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const x of asked) {
      const o = analyseSession(trajectoryToInput(x));
      expect(
        o.actionItems.filter((a) => a.kind === 'suspicious_data_flow' && a.title.includes(ATTACKER_IBAN)),
      ).toEqual([]);
    }
  });

  it('flags the attacker IBAN in every successful banking attack that paid it after reading it', () => {
    const paid = agentdojo.filter(
      (x) =>
        x.labels.attack_succeeded === true &&
        x.domain === 'banking' &&
        x.steps.some((s) => s.kind === 'tool_call' && JSON.stringify(s.arguments).includes(ATTACKER_IBAN)),
    );
    expect(paid.length).toBeGreaterThan(20);
    const missed = paid.filter((x) => {
      const o = analyseSession(trajectoryToInput(x));
      return !o.recommendations.some(
        (r) => r.kind === DATA_FLOW_KIND && JSON.stringify(r.policy).includes(ATTACKER_IBAN),
      );
    });
    expect(missed.map((x) => x.trajectory_id)).toEqual([]);
  });
});

describe('tau-bench sessions', () => {
  it('recommends approval for cancel_reservation where it ran unguarded, citing the calls', () => {
    const t = tau.find((x) => x.steps.some((s) => s.tool === 'cancel_reservation' && !s.error));
    if (!t) throw new Error('no cancel_reservation in tau-bench');
    const input = trajectoryToInput(t);
    const out = analyseSession(input);
    const rec = out.recommendations.find((r) => r.kind === DESTRUCTIVE_KIND);
    expect(rec?.policy).toEqual(
      expect.objectContaining({
        enabled: false,
        decision: 'require_approval',
        match: { field: 'tool.name', op: 'eq', value: 'cancel_reservation' },
      }),
    );
    const cancels = input.events.filter(
      (e) => e.type === 'agent.tool.started' && e.data.toolName === 'cancel_reservation',
    );
    expect(rec?.evidenceEventIds).toEqual(cancels.map((e) => e.id));
  });

  it('reports a tool failing repeatedly with its failed events', () => {
    const hits = tau
      .map((t) => ({ t, out: analyseSession(trajectoryToInput(t)) }))
      .filter(({ out }) => out.actionItems.some((a) => a.kind === 'tool_failing_repeatedly'));
    expect(hits.length).toBeGreaterThan(0);
    for (const { t, out } of hits) {
      const item = out.actionItems.find((a) => a.kind === 'tool_failing_repeatedly');
      const tool = item?.title.split(' ')[0] ?? '';
      const failures = t.steps.filter((s) => s.tool === tool && s.error).length;
      expect(item?.evidenceEventIds).toHaveLength(Math.min(failures, 50));
    }
  });
});

describe('guardrails, approvals and lost events', () => {
  const t = byId(
    agentdojo,
    'agentdojo/Meta-SecAlign-70B/banking/user_task_12/important_instructions/injection_task_0',
  );
  const policies: StoredPolicy[] = [
    {
      id: 'p1',
      name: 'no payments',
      version: 1,
      enabled: true,
      decision: 'block',
      match: { field: 'tool.name', op: 'eq', value: 'send_money' },
    },
    {
      id: 'p2',
      name: 'ask for files',
      version: 1,
      enabled: true,
      decision: 'require_approval',
      match: { field: 'tool.name', op: 'eq', value: 'read_file' },
    },
  ];

  it('monitor mode: the calls enforce mode would have blocked or held', () => {
    const out = analyseSession(trajectoryToInput(t, { policies, mode: 'monitor' }));
    const items = out.actionItems.filter((a) => a.kind === 'would_have_been_blocked');
    expect(items.map((a) => [a.severity, a.title])).toEqual([
      ['high', '1 send_money call would have been blocked in enforce mode'],
      ['medium', '1 read_file call would have been held for approval in enforce mode'],
    ]);
    expect(out.summary.figures.decisions).toEqual({ allow: 2, block: 1, require_approval: 1 });
    expect(out.story.some((m) => m.kind === 'guardrail' && m.title.includes('send_money'))).toBe(true);
  });

  it('enforce mode: the block and the approval that timed out (from the service rows)', () => {
    const input = trajectoryToInput(t, { policies, mode: 'enforce' });
    const out = analyseSession(input);
    expect(out.actionItems.map((a) => a.kind)).toEqual(
      expect.arrayContaining(['approval_timed_out', 'blocked_action']),
    );
    expect(out.summary.figures.approvals).toEqual({
      requested: 1,
      approved: 0,
      denied: 0,
      expired: 1,
      cancelled: 0,
      pending: 0,
      waitMs: [1000],
    });
    expect(out.summary.figures.toolCalls).toBe(2);
    expect(out.story.map((m) => m.kind)).toEqual(expect.arrayContaining(['block', 'approval']));
    // The service's status wins over the client's last event.
    const decided = analyseSession({
      ...input,
      approvals: input.approvals.map((a) => ({
        ...a,
        status: 'approved',
        decidedAt: new Date(Date.parse(a.createdAt) + 4000).toISOString(),
      })),
    });
    expect(decided.summary.figures.approvals).toEqual(
      expect.objectContaining({ approved: 1, expired: 0, waitMs: [4000] }),
    );
  });

  it('lost events: counts, ranges, an action item and a gap on the story', () => {
    const input = trajectoryToInput(t, { drop: new Set([4, 5, 6, 12]) });
    const out = analyseSession(input);
    expect(out.summary.figures.lostEvents).toBe(4);
    expect(out.summary.figures.sequenceGaps).toEqual([
      [4, 6],
      [12, 12],
    ]);
    const item = out.actionItems.find((a) => a.kind === 'events_lost');
    const after = input.events.filter((e) => e.sequence === 7 || e.sequence === 13).map((e) => e.id);
    expect(item?.evidenceEventIds).toEqual(after);
    expect(out.story.filter((m) => m.kind === 'gap').map((m) => m.eventIds)).toEqual(after.map((id) => [id]));
  });

  it('a failed run and session become high-severity items', () => {
    const input = trajectoryToInput(t);
    const failedInput = {
      ...input,
      session: { ...input.session, status: 'failed' },
      runs: input.runs.map((r) => ({ ...r, status: 'failed', error: 'agent crashed' })),
    };
    const out = analyseSession(failedInput);
    expect(
      out.actionItems
        .filter((a) => a.kind === 'run_failed' || a.kind === 'session_failed')
        .map((a) => a.severity),
    ).toEqual(['high', 'high']);
    expect(out.summary.outcome.status).toBe('failed');
  });
});
