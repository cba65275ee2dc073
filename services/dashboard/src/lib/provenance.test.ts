import type { ProvenanceInput } from '@agent-warden/contracts';
import type { WardenEvent } from '../api/types';
import { describeSessionProvenance, linkProvenance, sourceEventId } from './provenance';
import { toolCalls } from './timeline';

let seq = 0;
const ev = (type: string, data: unknown): WardenEvent => {
  seq += 1;
  return {
    id: `e${seq}`,
    type: type as WardenEvent['type'],
    time: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
    sessionId: 's',
    runId: null,
    parentId: null,
    agentId: 'a',
    agentVersionId: 'v',
    sequence: seq,
    data,
    receivedAt: new Date().toISOString(),
  };
};

const WEB = 'c-web';
const MAIL = 'c-mail';
const FAILED = 'c-failed';
const RUNNING = 'c-running';

/** A session: a web page read (its result carries instructions), an inbox read, a failed call, a call without result. */
function session(provenance: ProvenanceInput) {
  seq = 0;
  const events = [
    ev('agent.session.started', { inputSummary: 'Pay my rent to the landlord' }),
    ev('agent.tool.started', { toolCallId: WEB, toolName: 'get_webpage', arguments: { url: 'x' } }),
    ev('agent.tool.completed', { toolCallId: WEB, toolName: 'get_webpage', result: 'r', durationMs: 3 }),
    ev('agent.tool.started', { toolCallId: MAIL, toolName: 'read_inbox', arguments: {} }),
    ev('agent.tool.completed', { toolCallId: MAIL, toolName: 'read_inbox', result: 'r', durationMs: 3 }),
    ev('agent.tool.started', { toolCallId: FAILED, toolName: 'read_file', arguments: {} }),
    ev('agent.tool.failed', {
      toolCallId: FAILED,
      toolName: 'read_file',
      error: { message: 'x' },
      durationMs: 1,
    }),
    ev('agent.tool.started', { toolCallId: RUNNING, toolName: 'search', arguments: {} }),
    ev('agent.guardrail.evaluated', {
      toolCallId: 'c-pay',
      toolName: 'send_money',
      mode: 'enforce',
      policyDecision: 'block',
      effectiveDecision: 'block',
      matchedGuardrails: [],
      wouldBlock: true,
      wouldRequireApproval: false,
      provenance,
    }),
  ];
  return { events, calls: toolCalls(events), guard: events[events.length - 1]! };
}

describe('sourceEventId', () => {
  const { events, calls } = session({});
  const id = (type: string, toolCallId: string) =>
    events.find((e) => e.type === type && (e.data as { toolCallId: string }).toolCallId === toolCallId)!.id;

  it("links a source to its tool call's result: completed, else failed, else started", () => {
    expect(sourceEventId(calls, WEB)).toBe(id('agent.tool.completed', WEB));
    expect(sourceEventId(calls, FAILED)).toBe(id('agent.tool.failed', FAILED));
    expect(sourceEventId(calls, RUNNING)).toBe(id('agent.tool.started', RUNNING));
  });

  it('links nothing without a call id or for a call outside the loaded session', () => {
    expect(sourceEventId(calls, undefined)).toBeUndefined();
    expect(sourceEventId(calls, 'c-of-another-session')).toBeUndefined();
  });
});

describe('linkProvenance', () => {
  it('links each source of each argument to its event, tainted arguments first', () => {
    const { events, calls, guard } = session({
      arguments: [
        { path: 'amount', origin: 'user', sources: [] },
        {
          path: 'recipient',
          origin: 'tool',
          tainted: true,
          instructed: true,
          sources: [
            { toolName: 'get_webpage', toolCallId: WEB, instructions: true },
            { toolName: 'read_file', toolCallId: FAILED },
            { toolName: 'notes', toolCallId: 'c-of-another-session' },
          ],
        },
        { path: 'subject', origin: 'both', sources: [{ toolName: 'read_inbox', toolCallId: MAIL }] },
      ],
      session: {
        untrustedInstructions: 2,
        lastInstruction: { toolName: 'get_webpage', toolCallId: WEB, rules: ['override', 'address-model'] },
      },
    });
    const p = linkProvenance(guard, calls)!;
    expect(p.arguments.map((a) => a.path)).toEqual(['recipient', 'amount', 'subject']);
    expect(p.tainted).toBe(1);
    const recipient = p.arguments[0]!;
    expect(recipient).toMatchObject({ origin: 'tool', tainted: true, instructed: true });
    expect(recipient.sources).toEqual([
      { toolName: 'get_webpage', toolCallId: WEB, instructions: true, eventId: events[2]!.id },
      { toolName: 'read_file', toolCallId: FAILED, instructions: false, eventId: events[6]!.id },
      { toolName: 'notes', toolCallId: 'c-of-another-session', instructions: false },
    ]);
    expect(p.arguments[2]!.sources[0]!.eventId).toBe(events[4]!.id);
    expect(p.lastInstruction).toEqual({
      toolName: 'get_webpage',
      toolCallId: WEB,
      instructions: true,
      eventId: events[2]!.id,
      rules: ['override', 'address-model'],
    });
    expect(describeSessionProvenance(p)).toBe(
      'instructions aimed at the model seen in 2 tool results; latest: get_webpage, rules override, address-model',
    );
    expect(p.truncated).toBe(false);
  });

  it('is undefined for an evaluation without provenance and for other events', () => {
    const { events, calls, guard } = session({});
    delete (guard.data as { provenance?: unknown }).provenance;
    expect(linkProvenance(guard, calls)).toBeUndefined();
    expect(linkProvenance(events[2]!, calls)).toBeUndefined();
  });

  it('reads a partial provenance without failing: no session part, a source without call id', () => {
    const { calls, guard } = session({
      arguments: [
        { path: 'to', origin: 'tool', tainted: true, sources: [{ toolName: 'markUntrusted' }] },
        { path: '', origin: 'user' },
      ],
      truncated: true,
    });
    const p = linkProvenance(guard, calls)!;
    expect(p.arguments).toEqual([
      {
        path: 'to',
        origin: 'tool',
        tainted: true,
        instructed: false,
        sources: [{ toolName: 'markUntrusted', instructions: false }],
      },
    ]);
    expect(p.untrustedInstructions).toBe(0);
    expect(p.lastInstruction).toBeUndefined();
    expect(p.truncated).toBe(true);
    expect(describeSessionProvenance(p)).toBe(
      'no instructions aimed at the model seen in tool results so far',
    );
    expect(describeSessionProvenance({ untrustedInstructions: 1 })).toBe(
      'instructions aimed at the model seen in 1 tool result',
    );
  });
});
