import { readFileSync } from 'node:fs';
import { newId, toCloudEvent, type AgentEvent } from '@agent-warden/contracts';
import { agentKeyOf, type Trajectory, type TrajectoryStep } from '../../scripts/replay/trajectories';
import { TRAJECTORY_FILES } from '../../test/support/env';

/** Server ids of an identified agent. */
export interface AgentIds {
  agentId: string;
  agentVersionId: string;
}

/**
 * Reads every shared trajectory (`../shared/data/trajectories/*.jsonl`, in place, never copied).
 * Throws naming the file when the data is missing.
 */
export function loadTrajectories(files: string[] = TRAJECTORY_FILES): Trajectory[] {
  const out: Trajectory[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the shared trajectories (${file}): ${(err as Error).message}`, {
        cause: err,
      });
    }
    for (const line of text.split('\n')) if (line.trim() !== '') out.push(JSON.parse(line) as Trajectory);
  }
  return out;
}

/** The distinct agents of `trajectories`, as `{ key, name }` for `POST /v1/agents/identify`. */
export function agentsOf(trajectories: Trajectory[]): { key: string; name: string }[] {
  const byKey = new Map<string, string>();
  for (const t of trajectories) byKey.set(agentKeyOf(t.agent), t.agent);
  return [...byKey].map(([key, name]) => ({ key, name }));
}

/** Fields of an event a stream's `make` fills in (the rest — ids, sequence, time — are the stream's). */
export type EventFields = Pick<AgentEvent, 'type' | 'data'> & { runId?: string; parentId?: string };

/**
 * The end of a replayed tool call: `agent.tool.failed` when the step recorded an error, else
 * `agent.tool.completed` with its result; `durationMs` is derived from the step's index (5–404 ms).
 */
export function toolEndEvent<E>(
  make: (fields: EventFields) => E,
  step: Pick<TrajectoryStep, 'index' | 'error' | 'result'>,
  ids: { runId: string; startedId: string; toolCallId: string; toolName: string },
): E {
  const { runId, startedId, toolCallId, toolName } = ids;
  const durationMs = 5 + ((step.index * 37) % 400);
  return step.error
    ? make({
        type: 'agent.tool.failed',
        runId,
        parentId: startedId,
        data: { toolCallId, toolName, error: { message: step.error }, durationMs },
      })
    : make({
        type: 'agent.tool.completed',
        runId,
        parentId: startedId,
        data: { toolCallId, toolName, result: step.result ?? undefined, durationMs },
      });
}

/**
 * An endless stream of realistic agent events: the shared trajectories replayed one after another,
 * each replay as a fresh session (new UUIDv7 ids) with the event shapes the TypeScript client
 * sends — `agent.session.started`, `agent.run.started`, one `agent.message.logged` per message,
 * `agent.tool.started` + `agent.tool.completed` / `agent.tool.failed` per tool call with the logged
 * arguments and result or error, `agent.run.completed`, `agent.session.ended`.
 */
export class EventStream {
  private readonly iterator: Iterator<AgentEvent>;

  /**
   * @param trajectories replayed in order, round robin
   * @param agents server ids by agent key (see {@link agentsOf})
   */
  constructor(
    private readonly trajectories: Trajectory[],
    private readonly agents: Map<string, AgentIds>,
  ) {
    if (trajectories.length === 0) throw new Error('no trajectories to replay');
    this.iterator = this.generate();
  }

  /** The next `n` events. */
  take(n: number): AgentEvent[] {
    const out: AgentEvent[] = [];
    for (let i = 0; i < n; i += 1) out.push(this.iterator.next().value as AgentEvent);
    return out;
  }

  private *generate(): Generator<AgentEvent> {
    for (let round = 0; ; round += 1) for (const t of this.trajectories) yield* this.replay(t, round);
  }

  private *replay(t: Trajectory, round: number): Generator<AgentEvent> {
    const ids = this.agents.get(agentKeyOf(t.agent));
    if (!ids) throw new Error(`agent ${t.agent} was not identified`);
    const sessionId = newId();
    const runId = newId();
    let sequence = 0;
    const base = { sessionId, agentId: ids.agentId, agentVersionId: ids.agentVersionId };
    const make = (fields: EventFields) =>
      ({
        id: newId(),
        time: new Date().toISOString(),
        ...base,
        sequence: (sequence += 1),
        ...fields,
      }) as AgentEvent;

    yield make({
      type: 'agent.session.started',
      data: { inputSummary: t.task, attributes: { trajectoryId: t.trajectory_id, domain: t.domain, round } },
    });
    const runStarted = make({
      type: 'agent.run.started',
      runId,
      data: { name: t.trajectory_id.slice(0, 200), inputSummary: t.task },
    });
    yield runStarted;
    for (const step of t.steps) {
      if (step.kind === 'message') {
        yield make({
          type: 'agent.message.logged',
          runId,
          data: { role: step.role, content: step.content ?? '' },
        });
        continue;
      }
      const toolCallId = newId();
      const toolName = step.tool || '<empty-function-name>';
      const started = make({
        type: 'agent.tool.started',
        runId,
        data: { toolCallId, toolName, arguments: step.arguments ?? {} },
      });
      yield started;
      yield toolEndEvent(make, step, { runId, startedId: started.id, toolCallId, toolName });
    }
    yield make({
      type: 'agent.run.completed',
      runId,
      parentId: runStarted.id,
      data: { status: 'succeeded', durationMs: 1000 },
    });
    yield make({ type: 'agent.session.ended', data: { status: 'completed' } });
  }
}

/** The `POST /v1/events` body of `events`, serialised. */
export function eventsBody(events: AgentEvent[]): string {
  return JSON.stringify({ events });
}

/** A Kafka record as the gateway produces it: key = sessionId, value = the CloudEvent's JSON. */
export interface WireRecord {
  key: string;
  value: string;
}

/** The records the gateway would publish for `events` of `projectId` (`toCloudEvent` + `JSON.stringify`). */
export function toWireRecords(projectId: string, events: AgentEvent[]): WireRecord[] {
  return events.map((e) => ({ key: e.sessionId, value: JSON.stringify(toCloudEvent(projectId, e)) }));
}
