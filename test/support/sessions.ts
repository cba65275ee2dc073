import { newId } from '@agent-warden/contracts';

/** The ids a session's events name. */
export interface SessionIds {
  sessionId: string;
  runId: string;
  agentId: string;
  agentVersionId: string;
}

/**
 * The events (body of `POST /v1/events`) of one ended session whose single run deleted a file and
 * cancelled an order without any guard check — what the intelligence analysers turn into action
 * items and draft policies. Event times start at `t0` (ms since the epoch), 10 ms apart; `label`
 * prefixes the texts so two projects' sessions can be told apart.
 */
export function unguardedDestructiveSession(
  ids: SessionIds,
  t0: number,
  label = '',
): { id: string; type: string }[] {
  let sequence = 0;
  const ev = (type: string, data: object, run = true) => ({
    id: newId(),
    type,
    time: new Date(t0 + sequence * 10).toISOString(),
    sessionId: ids.sessionId,
    ...(run ? { runId: ids.runId } : {}),
    agentId: ids.agentId,
    agentVersionId: ids.agentVersionId,
    sequence: ++sequence,
    data,
  });
  const tool = (toolName: string, args: object) => {
    const toolCallId = newId();
    return [
      ev('agent.tool.started', { toolCallId, toolName, arguments: args }),
      ev('agent.tool.completed', { toolCallId, toolName, result: 'done', durationMs: 3 }),
    ];
  };
  const input = `${label}clean up my files and orders`;
  return [
    ev('agent.session.started', { inputSummary: input }, false),
    ev('agent.run.started', { name: 'main', inputSummary: input }),
    ...tool('delete_file', { path: '/home/me/taxes.pdf' }),
    ...tool('cancel_order', { orderId: 'A-17' }),
    ev('agent.run.completed', { status: 'succeeded', outputSummary: `${label}done` }),
    ev('agent.session.ended', { status: 'completed' }, false),
  ];
}
