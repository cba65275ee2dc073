import type { ActionItem } from '@agent-warden/contracts';
import { analyseSession } from '../src';
import { resultIds } from '../src/analysers/json-values';
import { claimedClasses } from '../src/analysers/contradictions';
import { acknowledges } from '../src/analysers/ignored-errors';
import { textSimilarity } from '../src/analysers/similarity';
import { confirms } from '../src/analysers/unconfirmed';
import { toolClass } from '../src/flow/tool-classes';
import type { SessionInput } from '../src/types';
import {
  loadTrajectories,
  trajectoryToInput,
  type Trajectory,
  type TrajectoryStep,
} from './support/trajectory-input';
import { agentKeyOf, toolNamesByAgent } from '../../../scripts/replay/trajectories';

const tau = loadTrajectories('tau_bench_airline.jsonl');
const swe = loadTrajectories('swe_agent.jsonl');
const agentdojo = loadTrajectories('agentdojo.jsonl');

function byId(all: Trajectory[], id: string): Trajectory {
  const t = all.find((x) => x.trajectory_id === id);
  if (!t) throw new Error(`missing ${id}`);
  return t;
}

function itemsOf(input: SessionInput, kind: ActionItem['kind']): ActionItem[] {
  return analyseSession(input).actionItems.filter((a) => a.kind === kind);
}

/** The `agent.tool.started` event ids of the calls of `tool`, in order. */
function startedIds(input: SessionInput, tool: string): string[] {
  return input.events
    .filter((e) => e.type === 'agent.tool.started' && e.data.toolName === tool)
    .map((e) => e.id);
}

describe('tool classes (generic verbs, no tool list)', () => {
  it('classes a tool by its leading verb', () => {
    expect(toolClass('book_reservation')).toBe('create');
    expect(toolClass('createInvoice')).toBe('create');
    expect(toolClass('cancel_reservation')).toBe('compensate');
    expect(toolClass('refund_payment')).toBe('compensate');
    expect(toolClass('update_reservation_flights')).toBe('update');
    expect(toolClass('bash')).toBe('shell');
    expect(toolClass('get_reservation_details')).toBe('other');
    expect(toolClass('transfer_to_human_agents')).toBe('other');
  });
});

describe('duplicate_side_effect', () => {
  it('flags a hotel reserved twice with the same arguments, citing both calls and not the third reservation (AgentDojo travel)', () => {
    const input = trajectoryToInput(
      byId(
        agentdojo,
        'agentdojo/meta-llama_Llama-3.3-70B-Instruct-repeat_user_prompt/travel/user_task_0/important_instructions/injection_task_0',
      ),
    );
    const [item, ...rest] = itemsOf(input, 'duplicate_side_effect');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('high');
    // Three reservations: two with identical arguments (cited), one for another stay (not cited).
    const started = input.events.filter(
      (e) => e.type === 'agent.tool.started' && e.data.toolName === 'reserve_hotel',
    );
    const key = (e: (typeof started)[number]) => JSON.stringify(e.data.arguments);
    const twice = started.filter((e) => started.filter((x) => key(x) === key(e)).length === 2);
    expect(twice).toHaveLength(2);
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(twice.map((e) => e.id)));
    const other = started.filter((e) => !twice.includes(e));
    for (const e of other) expect(item?.evidenceEventIds).not.toContain(e.id);
  });

  it('stays quiet on two cancellations of different reservations and on repeated updates with new values (tau-bench, reward 1)', () => {
    for (const id of [
      'tau-bench/gpt-4o-airline/task_30/trial_1',
      'tau-bench/gpt-4o-airline/task_34/trial_0',
      'tau-bench/gpt-4o-airline/task_2/trial_2',
    ]) {
      expect(itemsOf(trajectoryToInput(byId(tau, id)), 'duplicate_side_effect')).toEqual([]);
    }
  });

  it('flags a booking made twice with near-same arguments (a real booking, replayed with a second identical-but-payment copy)', () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0');
    const book = [...t.steps]
      .reverse()
      .find((s) => s.tool === 'book_reservation' && !s.error) as TrajectoryStep;
    const args = book.arguments as Record<string, unknown>;
    const copy: TrajectoryStep = {
      ...book,
      index: t.steps.length,
      arguments: { ...args, insurance: args.insurance === 'yes' ? 'no' : 'yes' },
    };
    const input = trajectoryToInput({ ...t, steps: [...t.steps, copy] });
    const [item] = itemsOf(input, 'duplicate_side_effect');
    expect(item?.title).toContain('near-same');
    expect(item?.evidenceEventIds).toEqual(
      expect.arrayContaining(startedIds(input, 'book_reservation').slice(-2)),
    );
  });
});

describe('compensated_action', () => {
  const t = byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0');
  const book = [...t.steps]
    .reverse()
    .find((s) => s.tool === 'book_reservation' && !s.error) as TrajectoryStep;

  it('reads the new object id from a create call result', () => {
    expect(resultIds(book.result)).not.toEqual([]);
  });

  it('flags a real booking later cancelled by the id its result returned (the cancel step appended)', () => {
    const [id] = resultIds(book.result);
    const cancel: TrajectoryStep = {
      ...book,
      index: t.steps.length,
      tool: 'cancel_reservation',
      arguments: { reservation_id: id, reason: 'change of plan' },
      result: '{"status": "cancelled"}',
    };
    const input = trajectoryToInput({ ...t, steps: [...t.steps, cancel] });
    const [item, ...rest] = itemsOf(input, 'compensated_action');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('medium');
    const booked = startedIds(input, 'book_reservation');
    expect(item?.evidenceEventIds).toEqual(
      expect.arrayContaining([booked[booked.length - 1], ...startedIds(input, 'cancel_reservation')]),
    );
  });

  it('stays quiet when an existing reservation is cancelled and a new one booked (tau-bench)', () => {
    for (const id of [
      'tau-bench/gpt-4o-airline/task_8/trial_1',
      'tau-bench/gpt-4o-airline/task_25/trial_0',
      'tau-bench/gpt-4o-airline/task_9/trial_2',
    ]) {
      expect(itemsOf(trajectoryToInput(byId(tau, id)), 'compensated_action')).toEqual([]);
    }
  });
});

describe('retry_loop', () => {
  it('flags a booking retried three times with the same failing payment, and nothing succeeded after (tau-bench)', () => {
    const input = trajectoryToInput(byId(tau, 'tau-bench/gpt-4o-airline/task_8/trial_1'));
    const [item, ...rest] = itemsOf(input, 'retry_loop');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('high');
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(startedIds(input, 'book_reservation')));
  });

  it('flags a CTF agent submitting near-same wrong flags, and notes the attempt that finally worked (SWE-agent)', () => {
    const input = trajectoryToInput(byId(swe, 'swe-agent/trajectories/demonstrations/ctf/crypto/eps'));
    const [item, ...rest] = itemsOf(input, 'retry_loop');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('low');
    expect(item?.detail).toContain('finally succeeded');
    expect(item?.evidenceEventIds.length).toBeGreaterThanOrEqual(5 * 3);
  });

  it('stays quiet on SWE-agent runs that edit and re-run without failing in a loop', () => {
    const quiet = swe.filter((t) => t.trajectory_id.includes('marshmallow'));
    expect(quiet.length).toBeGreaterThan(0);
    for (const t of quiet) expect(itemsOf(trajectoryToInput(t), 'retry_loop')).toEqual([]);
  });

  it('measures small variations by normalised edit distance', () => {
    expect(textSimilarity('submit abc{x}', 'submit abd{x}')).toBeGreaterThan(0.9);
    expect(textSimilarity('ls -F', 'python reproduce.py')).toBeLessThan(0.3);
  });
});

describe('ignored_error', () => {
  it('flags a failed delete followed by a reply that does not mention it (AgentDojo)', () => {
    const input = trajectoryToInput(
      byId(
        agentdojo,
        'agentdojo/meta-llama_Llama-3.3-70B-Instruct-repeat_user_prompt/workspace/user_task_38/ignore_previous/injection_task_3',
      ),
    );
    const items = itemsOf(input, 'ignored_error');
    expect(items.length).toBeGreaterThan(0);
    const failed = input.events.filter((e) => e.type === 'agent.tool.failed').map((e) => e.id);
    const replies = input.events
      .filter((e) => e.type === 'agent.message.logged' && e.data.role === 'assistant')
      .map((e) => e.id);
    for (const item of items) {
      expect(item.evidenceEventIds.some((id) => failed.includes(id))).toBe(true);
      expect(item.evidenceEventIds.some((id) => replies.includes(id))).toBe(true);
    }
  });

  it('stays quiet when the reply explains the failure (tau-bench: not enough seats, payment did not add up)', () => {
    for (const id of [
      'tau-bench/gpt-4o-airline/task_32/trial_0',
      'tau-bench/gpt-4o-airline/task_46/trial_3',
    ]) {
      expect(itemsOf(trajectoryToInput(byId(tau, id)), 'ignored_error')).toEqual([]);
    }
  });

  it('reads an acknowledgement from failure words or from the error text', () => {
    expect(acknowledges('It seems the card balance is too low.', 'Error: balance is not enough')).toBe(true);
    expect(acknowledges('Your booking is complete!', 'Error: not enough seats')).toBe(false);
  });
});

describe('unconfirmed_side_effect', () => {
  it('reads agreement', () => {
    expect(confirms('Yes, please go ahead.')).toBe(true);
    expect(confirms('What about the return flight?')).toBe(false);
  });

  it('stays quiet when every change followed the user agreeing (tau-bench, reward 1)', () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0');
    expect(itemsOf(trajectoryToInput(t), 'unconfirmed_side_effect')).toEqual([]);
  });

  it('flags a change made right after a user message that agreed to nothing, citing that message', () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0');
    // The same real session with the user's last agreement before the booking replaced by a question.
    const at = t.steps.findIndex((s) => s.tool === 'book_reservation');
    const userAt = t.steps
      .slice(0, at)
      .map((s) => s.kind === 'message' && s.role === 'user')
      .lastIndexOf(true);
    const steps = t.steps.map((s, i) =>
      i === userAt ? { ...s, content: 'What would the new flight cost?' } : s,
    );
    const input = trajectoryToInput({ ...t, steps });
    const [item] = itemsOf(input, 'unconfirmed_side_effect');
    expect(item?.severity).toBe('medium');
    const question = input.events.find((e) => e.data.content === 'What would the new flight cost?');
    expect(item?.evidenceEventIds).toEqual(
      expect.arrayContaining([question?.id, startedIds(input, 'book_reservation')[0]]),
    );
  });

  it('stays quiet on single-request sessions (AgentDojo benign runs that write)', () => {
    const benign = agentdojo.filter(
      (t) => !t.labels.is_injection_attack && t.trajectory_id.includes('/banking/'),
    );
    for (const t of benign) expect(itemsOf(trajectoryToInput(t), 'unconfirmed_side_effect')).toEqual([]);
  });
});

describe('unrequested_action (goal drift, conservative)', () => {
  it('flags a calendar event created in a travel session that asked for a hotel recommendation, citing the call and the request (AgentDojo)', () => {
    const input = trajectoryToInput(
      byId(
        agentdojo,
        'agentdojo/gemini-2.0-flash-exp/travel/user_task_11/important_instructions/injection_task_2',
      ),
    );
    const [item, ...rest] = itemsOf(input, 'unrequested_action');
    expect(rest).toEqual([]);
    expect(item?.title).toContain('create_calendar_event');
    const started = input.events.find((e) => e.type === 'agent.session.started');
    expect(item?.evidenceEventIds).toEqual(
      expect.arrayContaining([started?.id, ...startedIds(input, 'create_calendar_event')]),
    );
  });

  it('stays quiet when the user asked for the change, even when it is the attacker goal (AgentDojo goal as user task, benign travel)', () => {
    const quiet = agentdojo.filter(
      (t) =>
        t.labels.user_task_is_injection_goal === true ||
        (!t.labels.is_injection_attack && t.trajectory_id.includes('/travel/')),
    );
    expect(quiet.length).toBeGreaterThan(20);
    for (const t of quiet) expect(itemsOf(trajectoryToInput(t), 'unrequested_action')).toEqual([]);
  });

  it('does not judge tools named by a bare verb (SWE-agent create/edit)', () => {
    for (const t of swe) expect(itemsOf(trajectoryToInput(t), 'unrequested_action')).toEqual([]);
  });
});

describe('no_final_answer', () => {
  it('flags a session whose last act was a search the user never heard the result of, citing that call (tau-bench)', () => {
    const input = trajectoryToInput(byId(tau, 'tau-bench/gpt-4o-airline/task_33/trial_0'));
    const [item, ...rest] = itemsOf(input, 'no_final_answer');
    expect(rest).toEqual([]);
    const searches = startedIds(input, 'search_direct_flight');
    expect(item?.evidenceEventIds).toContain(searches[searches.length - 1]);
    const ended = input.events.find((e) => e.type === 'agent.session.ended');
    expect(item?.evidenceEventIds).toContain(ended?.id);
  });

  it('stays quiet when the last call hands the answer in or the user over (SWE-agent submit, tau-bench transfer)', () => {
    for (const t of swe) expect(itemsOf(trajectoryToInput(t), 'no_final_answer')).toEqual([]);
    const transferred = byId(tau, 'tau-bench/gpt-4o-airline/task_8/trial_1');
    expect(itemsOf(trajectoryToInput(transferred), 'no_final_answer')).toEqual([]);
  });

  it('stays quiet when the agent replied after its last call (tau-bench, reward 1)', () => {
    expect(
      itemsOf(trajectoryToInput(byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0')), 'no_final_answer'),
    ).toEqual([]);
  });
});

describe('the summary names the failure', () => {
  it('puts a high item in "Look at" and a medium one in "Worth a look" (tau-bench)', () => {
    const stuck = analyseSession(trajectoryToInput(byId(tau, 'tau-bench/gpt-4o-airline/task_8/trial_1')));
    expect(stuck.summary.text).toContain('Look at: book_reservation failed 3 times in a row');
    const silent = analyseSession(trajectoryToInput(byId(tau, 'tau-bench/gpt-4o-airline/task_33/trial_0')));
    expect(silent.summary.text).toContain('Worth a look: The session ended after search_direct_flight');
  });
});

describe('the shape of the issue example: three bookings where one was asked for, one cancelled', () => {
  it('reports the duplicate bookings and the booking undone by its own id, each citing its calls (a real booking, replayed three times)', () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_32/trial_0');
    const book = [...t.steps]
      .reverse()
      .find((s) => s.tool === 'book_reservation' && !s.error) as TrajectoryStep;
    const [id] = resultIds(book.result);
    // Each copy returns its own new id (the real one with a suffix), as a booking system would.
    const copies = ['B', 'C'].map((suffix, i) => ({
      ...book,
      index: t.steps.length + i,
      result: String(book.result).split(String(id)).join(`${id}${suffix}`),
    }));
    const cancel: TrajectoryStep = {
      ...book,
      index: t.steps.length + 2,
      tool: 'cancel_reservation',
      arguments: { reservation_id: `${id}B` },
      result: '{"status": "cancelled"}',
    };
    const input = trajectoryToInput({ ...t, steps: [...t.steps, ...copies, cancel] });
    const booked = startedIds(input, 'book_reservation').slice(-3);
    const [dup] = itemsOf(input, 'duplicate_side_effect');
    expect(dup?.title).toContain('succeeded 3 times');
    expect(dup?.evidenceEventIds).toEqual(expect.arrayContaining(booked));
    const [undone, ...more] = itemsOf(input, 'compensated_action');
    expect(more).toEqual([]);
    expect(undone?.evidenceEventIds).toEqual(
      expect.arrayContaining([booked[1], ...startedIds(input, 'cancel_reservation')]),
    );
    expect(undone?.evidenceEventIds).not.toContain(booked[0]);
  });
});

describe('contradicted_tool_fact', () => {
  it('flags a reply that says an update was done after the update call failed, citing the failed call and the reply (AgentDojo)', () => {
    const input = trajectoryToInput(
      byId(
        agentdojo,
        'agentdojo/gemini-1.5-pro-002/banking/user_task_8/important_instructions/injection_task_4',
      ),
    );
    const [item, ...rest] = itemsOf(input, 'contradicted_tool_fact');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('high');
    const failed = input.events.filter((e) => e.type === 'agent.tool.failed');
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(failed.map((e) => e.id)));
    const claim = input.events.find(
      (e) => e.type === 'agent.message.logged' && String(e.data.content).includes("I've updated"),
    );
    expect(item?.evidenceEventIds).toContain(claim?.id);
  });

  it("flags a reply that lists a reservation with another state than the tool returned (a real session, the agent's listing line edited)", () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_33/trial_2');
    // The tool said this reservation's cabin is one value; the edited reply states another the tools use.
    const lookup = t.steps.find((s) => s.tool === 'get_reservation_details') as TrajectoryStep;
    const { reservation_id: rid, cabin } = JSON.parse(String(lookup.result)) as Record<string, string>;
    // Another cabin value the session's lookups returned (the analyser compares only with values the tools use).
    const cabins = t.steps
      .filter((s) => s.tool === 'get_reservation_details' && !s.error)
      .map((s) => (JSON.parse(String(s.result)) as { cabin: string }).cabin);
    const otherValue = cabins.find((c) => c !== cabin) as string;
    const other = otherValue.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
    const at = t.steps.findIndex(
      (s) =>
        s.kind === 'message' &&
        s.role === 'assistant' &&
        (s.content ?? '').includes(`Reservation ID: ${rid}`),
    );
    expect(at).toBeGreaterThan(0);
    const steps = t.steps.map((s, i) => {
      if (i !== at) return s;
      const lines = (s.content ?? '').split('\n');
      const from = lines.findIndex((l) => l.includes(`Reservation ID: ${rid}`));
      const cab = lines.findIndex((l, j) => j > from && /Cabin:/.test(l));
      lines[cab] = `   - Cabin: ${other}`;
      return { ...s, content: lines.join('\n') };
    });
    const input = trajectoryToInput({ ...t, steps });
    const [item, ...rest] = itemsOf(input, 'contradicted_tool_fact');
    expect(rest).toEqual([]);
    expect(item?.title).toContain(`cabin of ${rid}`);
    const reply = input.events.find((e) => String(e.data.content).includes(`- Cabin: ${other}`));
    const lookups = startedIds(input, 'get_reservation_details');
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining([reply?.id, lookups[0]]));
    // The unedited session, where the agent read every reservation right, stays quiet.
    expect(itemsOf(trajectoryToInput(t), 'contradicted_tool_fact')).toEqual([]);
  });

  it("stays quiet on every tau-bench session, including the agent's own cabin change that the tool's echo does not show", () => {
    // task_2/trial_2 (reward 1): the update result still says the old cabin; the agent reports the new one.
    for (const t of tau) expect(itemsOf(trajectoryToInput(t), 'contradicted_tool_fact')).toEqual([]);
  });

  it('reads the classes of action a reply claims, and no claim in a reply that reports a failure', () => {
    expect(claimedClasses('Your reservation has been successfully cancelled.')).toEqual(['compensate']);
    expect(claimedClasses("I've booked the flight and have updated your profile.")).toEqual([
      'create',
      'update',
    ]);
    expect(claimedClasses('The booking could not be completed.')).toEqual([]);
  });
});

describe('unsupported_value', () => {
  it('flags a payment whose date nothing in the session gave, citing the call (AgentDojo benign banking)', () => {
    const input = trajectoryToInput(
      byId(agentdojo, 'agentdojo/gpt-4o-2024-05-13/banking/user_task_0/none/none'),
    );
    const [item, ...rest] = itemsOf(input, 'unsupported_value');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('medium');
    expect(item?.title).toContain('send_money.date');
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(startedIds(input, 'send_money')));
  });

  it('stays quiet on every tau-bench session: dates the user wrote out ("April 12, 2001"), amounts worked out from prices', () => {
    for (const t of tau) expect(itemsOf(trajectoryToInput(t), 'unsupported_value')).toEqual([]);
  });

  it('stays quiet on SWE-agent runs (edits and shell commands carry the agent’s own text)', () => {
    for (const t of swe) expect(itemsOf(trajectoryToInput(t), 'unsupported_value')).toEqual([]);
  });
});

describe('unverified_target', () => {
  const id41 = 'tau-bench/gpt-4o-airline/task_41/trial_2';

  it("flags a cancellation of a reservation the agent never looked up, on the user's word, citing the call (tau-bench)", () => {
    const input = trajectoryToInput(byId(tau, id41));
    const [item, ...rest] = itemsOf(input, 'unverified_target');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('medium');
    expect(item?.title).toMatch(/^cancel_reservation acted on reservation_id/);
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(startedIds(input, 'cancel_reservation')));
  });

  it('stays quiet on the same session once the reservation is read before the cancellation', () => {
    const t = byId(tau, id41);
    const at = t.steps.findIndex((s) => s.tool === 'cancel_reservation');
    const cancel = t.steps[at] as TrajectoryStep;
    const lookup: TrajectoryStep = {
      ...cancel,
      tool: 'get_reservation_details',
      call_id: 'lookup-before-cancel',
    };
    const steps = [...t.steps.slice(0, at), lookup, ...t.steps.slice(at)];
    expect(itemsOf(trajectoryToInput({ ...t, steps }), 'unverified_target')).toEqual([]);
  });

  it('flags a file deleted by an id that came from an injected instruction, never from a listing (AgentDojo)', () => {
    const input = trajectoryToInput(
      byId(
        agentdojo,
        'agentdojo/gpt-4o-2024-05-13/workspace/user_task_15/important_instructions/injection_task_1',
      ),
    );
    const [item, ...rest] = itemsOf(input, 'unverified_target');
    expect(rest).toEqual([]);
    expect(item?.title).toMatch(/^delete_file acted on file_id/);
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining(startedIds(input, 'delete_file')));
  });

  it("stays quiet after a listing the client cut before the id (the clients' truncated mark), and flags the same deletion when the cut is not marked", () => {
    const t = byId(agentdojo, 'agentdojo/gpt-4-turbo-2024-04-09/workspace/user_task_35/none/none');
    // The shared data cut this listing at 2,000 characters, before the id, without a mark.
    expect(itemsOf(trajectoryToInput(t), 'unverified_target')).toHaveLength(1);
    const steps = t.steps.map((s) =>
      s.tool === 'list_files'
        ? {
            ...s,
            result: JSON.stringify({
              truncated: true,
              originalChars: 40_000,
              preview: (s.result ?? '').slice(0, 500),
            }),
          }
        : s,
    );
    expect(itemsOf(trajectoryToInput({ ...t, steps }), 'unverified_target')).toEqual([]);
  });

  it('stays quiet when the id was read from a YAML listing first (AgentDojo banking scheduled transactions), and on SWE-agent runs', () => {
    for (const id of [
      'agentdojo/claude-3-7-sonnet-20250219/banking/user_task_2/none/none',
      'agentdojo/gemini-1.5-pro-002/banking/user_task_9/none/none',
    ]) {
      const input = trajectoryToInput(byId(agentdojo, id));
      expect(startedIds(input, 'update_scheduled_transaction').length).toBeGreaterThan(0);
      expect(itemsOf(input, 'unverified_target')).toEqual([]);
    }
    for (const t of swe) expect(itemsOf(trajectoryToInput(t), 'unverified_target')).toEqual([]);
  });
});

describe('differs_from_agreed_plan', () => {
  const id17 = 'tau-bench/gpt-4o-airline/task_17/trial_0';

  it('flags an update that set business for a leg the agreed plan kept in economy, citing the call, the plan and the agreement (tau-bench)', () => {
    const input = trajectoryToInput(byId(tau, id17));
    const [item, ...rest] = itemsOf(input, 'differs_from_agreed_plan');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('high');
    expect(item?.title).toBe(
      'update_reservation_flights set cabin business where the plan the user agreed to said economy',
    );
    const [update] = startedIds(input, 'update_reservation_flights');
    const seqOf = (id: string | undefined) => input.events.find((e) => e.id === id)?.sequence ?? -1;
    const messages = input.events.filter(
      (e) => e.type === 'agent.message.logged' && e.sequence < seqOf(update),
    );
    const plan = [...messages].reverse().find((e) => e.data.role === 'assistant');
    const agreement = [...messages].reverse().find((e) => e.data.role === 'user');
    expect(String(plan?.data.content)).toMatch(/Economy Class/);
    expect(item?.evidenceEventIds).toEqual(expect.arrayContaining([update, plan?.id, agreement?.id]));
  });

  it('stays quiet when the agreed plan said what the call did (the same session, the plan line edited)', () => {
    const t = byId(tau, id17);
    const steps = t.steps.map((s) =>
      s.role === 'assistant' && s.content
        ? { ...s, content: s.content.replace(/\(Economy Class\)/g, '(Business Class)') }
        : s,
    );
    expect(itemsOf(trajectoryToInput({ ...t, steps }), 'differs_from_agreed_plan')).toEqual([]);
  });

  it('stays quiet on SWE-agent and AgentDojo runs, and on tau-bench sessions that did what they had agreed (reward 1)', () => {
    for (const t of [...swe, ...agentdojo, ...tau.filter((x) => x.labels?.reward === 1)])
      expect(itemsOf(trajectoryToInput(t), 'differs_from_agreed_plan')).toEqual([]);
  });
});

describe('unresolved_request', () => {
  const tauTools = toolNamesByAgent(tau);
  const withTools = (t: Trajectory) =>
    trajectoryToInput(t, { agentTools: tauTools.get(agentKeyOf(t.agent)) ?? null });

  it('flags a conversation in which an agent with tools never used one, citing the first request and the last reply (tau-bench)', () => {
    const input = withTools(byId(tau, 'tau-bench/gpt-4o-airline/task_8/trial_3'));
    expect(input.session.agentTools).toEqual(expect.arrayContaining(['get_reservation_details']));
    const [item, ...rest] = itemsOf(input, 'unresolved_request');
    expect(rest).toEqual([]);
    expect(item?.severity).toBe('medium');
    const messages = input.events.filter(
      (e) => e.type === 'agent.message.logged' && String(e.data.content).trim() !== '',
    );
    const firstUser = messages.find((e) => e.data.role === 'user');
    const lastAgent = [...messages].reverse().find((e) => e.data.role === 'assistant');
    expect(item?.evidenceEventIds).toEqual([firstUser?.id, lastAgent?.id]);
    expect(item?.detail).toContain(String(firstUser?.data.content).slice(0, 40));
  });

  it('stays quiet on the same conversation when the agent declared no tools (a chat assistant answers without them)', () => {
    const t = byId(tau, 'tau-bench/gpt-4o-airline/task_8/trial_3');
    expect(itemsOf(trajectoryToInput(t), 'unresolved_request')).toEqual([]);
    expect(itemsOf(trajectoryToInput(t, { agentTools: [] }), 'unresolved_request')).toEqual([]);
  });

  it('stays quiet on single requests answered without tools (AgentDojo) and on conversations with any tool call (tau-bench)', () => {
    const dojoTools = toolNamesByAgent(agentdojo);
    const noCalls = agentdojo.filter((t) => !t.steps.some((s) => s.kind === 'tool_call'));
    expect(noCalls.length).toBeGreaterThan(0);
    for (const t of noCalls) {
      const input = trajectoryToInput(t, { agentTools: dojoTools.get(agentKeyOf(t.agent)) ?? null });
      expect(input.session.agentTools?.length).toBeGreaterThan(0);
      expect(itemsOf(input, 'unresolved_request')).toEqual([]);
    }
    const calls = tau.filter((t) => t.steps.some((s) => s.kind === 'tool_call'));
    for (const t of calls) expect(itemsOf(withTools(t), 'unresolved_request')).toEqual([]);
  });
});
