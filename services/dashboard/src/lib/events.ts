import type { EventType, WardenEvent } from '../api/types';
import { duration, num } from './format';

/** Every event type (kept equal to the contracts' list by the `satisfies` check). */
export const EVENT_TYPES = [
  'agent.session.started',
  'agent.session.ended',
  'agent.run.started',
  'agent.run.completed',
  'agent.tool.started',
  'agent.tool.completed',
  'agent.tool.failed',
  'agent.action.performed',
  'agent.guardrail.evaluated',
  'agent.approval.requested',
  'agent.approval.resolved',
  'agent.message.logged',
  'agent.score.recorded',
  'agent.llm.called',
  'agent.custom',
] as const satisfies readonly EventType[];

/** Guard decisions, least to most severe. */
export const DECISIONS = ['allow', 'warn', 'require_approval', 'block'] as const;

/** Colour family of an event on the timeline. */
export type Tone = 'neutral' | 'info' | 'ok' | 'warn' | 'bad' | 'accent';

/** What one line of the timeline says about an event. */
export interface EventLine {
  icon: string;
  title: string;
  detail: string;
  tone: Tone;
}

type Data = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** Icon, title, one-line detail and tone of an event (by type, from its `data`). */
export function describeEvent(e: Pick<WardenEvent, 'type' | 'data'>): EventLine {
  const d = (e.data ?? {}) as Data;
  switch (e.type) {
    case 'agent.session.started':
      return { icon: '●', title: 'Session started', detail: str(d.inputSummary), tone: 'accent' };
    case 'agent.session.ended':
      return {
        icon: '■',
        title: `Session ${str(d.status) || 'ended'}`,
        detail: str(d.outputSummary),
        tone: d.status === 'failed' ? 'bad' : 'accent',
      };
    case 'agent.run.started':
      return {
        icon: '▶',
        title: `Run started${d.name ? ` · ${str(d.name)}` : ''}`,
        detail: str(d.inputSummary),
        tone: 'info',
      };
    case 'agent.run.completed':
      return {
        icon: '◼',
        title: `Run ${str(d.status)}`,
        detail: d.error ? str((d.error as Data).message) : str(d.outputSummary),
        tone: d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'bad' : 'neutral',
      };
    case 'agent.tool.started':
      return { icon: '→', title: str(d.toolName), detail: argsPreview(d.arguments), tone: 'neutral' };
    case 'agent.tool.completed':
      return {
        icon: '✓',
        title: `${str(d.toolName)} returned`,
        detail: str(d.result).slice(0, 200),
        tone: 'ok',
      };
    case 'agent.tool.failed':
      return {
        icon: '✗',
        title: `${str(d.toolName)} failed`,
        detail: str((d.error as Data | undefined)?.message),
        tone: 'bad',
      };
    case 'agent.action.performed':
      return {
        icon: '◆',
        title: `${str(d.actionType)} · ${str(d.name)}`,
        detail: str(d.details ?? ''),
        tone: 'info',
      };
    case 'agent.guardrail.evaluated': {
      const decision = str(d.policyDecision);
      const names = ((d.matchedGuardrails as { name: string }[] | undefined) ?? []).map((m) => m.name);
      return {
        icon: '◈',
        title: `Guardrail: ${decision.replace('_', ' ')}${d.toolName ? ` · ${str(d.toolName)}` : ''}`,
        detail: names.length ? `matched ${names.join(', ')}` : str(d.outcome),
        tone: decisionTone(decision),
      };
    }
    case 'agent.approval.requested':
      return { icon: '◔', title: 'Approval requested', detail: `expires ${str(d.expiresAt)}`, tone: 'warn' };
    case 'agent.approval.resolved':
      return {
        icon: d.status === 'approved' ? '✔' : '✖',
        title: `Approval ${str(d.status)}`,
        detail: [d.decidedBy ? `by ${str(d.decidedBy)}` : '', str(d.comment)].filter(Boolean).join(' — '),
        tone: d.status === 'approved' ? 'ok' : 'bad',
      };
    case 'agent.message.logged':
      return {
        icon: '✉',
        title: `${str(d.role)} message`,
        detail: str(d.content).slice(0, 300),
        tone: 'neutral',
      };
    case 'agent.score.recorded': {
      const v = d.dataType === 'boolean' ? (d.value ? 'yes' : 'no') : str(d.value);
      return {
        icon: '★',
        title: `score ${str(d.name)} = ${v}`,
        detail: [str(d.source), str(d.comment ?? '')].filter(Boolean).join(' · '),
        tone: 'accent',
      };
    }
    case 'agent.llm.called': {
      const tokens =
        typeof d.inputTokens === 'number' || typeof d.outputTokens === 'number'
          ? `${num(d.inputTokens as number | undefined)} in / ${num(d.outputTokens as number | undefined)} out`
          : '';
      const err = d.error as Data | undefined;
      return {
        icon: '✦',
        title: `${str(d.operation) || 'chat'} · ${str(d.responseModel ?? d.model)}`,
        detail: err
          ? `${err.type ? `${str(err.type)}: ` : ''}${str(err.message)}`
          : [tokens, typeof d.durationMs === 'number' ? duration(d.durationMs) : '']
              .filter(Boolean)
              .join(' · '),
        tone: err ? 'bad' : 'info',
      };
    }
    case 'agent.custom':
      return { icon: '✱', title: str(d.name) || 'custom', detail: str(d.data ?? ''), tone: 'neutral' };
    default:
      return { icon: '·', title: e.type, detail: '', tone: 'neutral' };
  }
}

function argsPreview(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  return Object.entries(args as Data)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`)
    .join(', ')
    .slice(0, 300);
}

/** Tone of a guard decision. */
export function decisionTone(decision: string): Tone {
  if (decision === 'block') return 'bad';
  if (decision === 'require_approval') return 'warn';
  if (decision === 'warn') return 'warn';
  return 'ok';
}
