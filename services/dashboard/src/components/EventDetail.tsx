import type { ReactNode } from 'react';
import type { LlmCall, Run, WardenEvent } from '../api/types';
import { describeEvent } from '../lib/events';
import { dateTime, duration, num } from '../lib/format';
import { usd } from '../lib/llm';
import { linkProvenance } from '../lib/provenance';
import type { ToolCall } from '../lib/timeline';
import { ProvenanceView } from './ProvenanceView';
import { Badge, DecisionBadge, JsonView, StatusBadge } from './ui';

type Data = Record<string, unknown>;

const NO_CALLS: ReadonlyMap<string, ToolCall> = new Map();

/** What {@link GuardBody} needs to show and link an evaluation's provenance. */
interface Linking {
  calls: ReadonlyMap<string, ToolCall>;
  onJump: (eventId: string) => void;
}

/**
 * The selected event of a replay: what it says, its tool call (arguments, result, error, duration,
 * decision and the decision's provenance) and its JSON. `calls` (the session's tool calls) links
 * provenance sources to their tool results' events; `onJump` selects an event by id.
 */
export function EventDetail({
  event,
  call,
  calls = NO_CALLS,
  run,
  llmCall,
  onJump,
}: {
  event: WardenEvent;
  call?: ToolCall;
  calls?: ReadonlyMap<string, ToolCall>;
  run?: Run;
  /** The stored LLM call of an `agent.llm.called` event (its cost as priced by the service). */
  llmCall?: LlmCall;
  onJump: (eventId: string) => void;
}) {
  const line = describeEvent(event);
  const d = (event.data ?? {}) as Data;
  return (
    <div className="event-detail" data-testid="event-detail">
      <div className="row spread">
        <Badge tone={line.tone}>
          {line.icon} {event.type.replace('agent.', '')}
        </Badge>
        <span className="muted small mono">#{event.sequence}</span>
      </div>
      <h3>{line.title}</h3>
      <div className="muted small">
        {dateTime(event.time)}
        {run && <> · run {run.name ?? run.id.slice(0, 8)}</>}
      </div>
      {call && <ToolCallCard call={call} calls={calls} current={event.id} onJump={onJump} />}
      {!call && event.type === 'agent.llm.called' && <LlmBody d={d} stored={llmCall} />}
      {!call && <TypeBody event={event} d={d} calls={calls} onJump={onJump} />}
      <details className="raw">
        <summary>Full JSON</summary>
        <JsonView value={event} maxHeight={360} />
      </details>
    </div>
  );
}

function Section({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="section">
      <div className="label">{label}</div>
      {children}
    </div>
  );
}

function TypeBody({ event, d, calls, onJump }: { event: WardenEvent; d: Data } & Linking) {
  switch (event.type) {
    case 'agent.message.logged':
      return (
        <Section label={`${String(d.role)} message`}>
          <div className="message-text">{String(d.content ?? '')}</div>
        </Section>
      );
    case 'agent.session.started':
    case 'agent.run.started':
      return d.inputSummary ? (
        <Section label="Input">
          <div className="message-text">{String(d.inputSummary)}</div>
        </Section>
      ) : null;
    case 'agent.run.completed':
    case 'agent.session.ended':
      return (
        <>
          <Section label="Status">
            <StatusBadge status={String(d.status ?? 'ended')} />
            {typeof d.durationMs === 'number' && (
              <span className="muted small"> after {duration(d.durationMs)}</span>
            )}
          </Section>
          {!!d.outputSummary && (
            <Section label="Output">
              <div className="message-text">{String(d.outputSummary)}</div>
            </Section>
          )}
          {!!d.error && (
            <Section label="Error">
              <pre className="error-text">{(d.error as Data).message as string}</pre>
            </Section>
          )}
        </>
      );
    case 'agent.guardrail.evaluated':
      return <GuardBody event={event} calls={calls} onJump={onJump} />;
    default:
      return null;
  }
}

/** An LLM call: model, tokens, latency, cost (the stored one, else the event's) and error. */
function LlmBody({ d, stored }: { d: Data; stored?: LlmCall }) {
  const n = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const err = d.error as Data | undefined;
  const cost = stored ? stored.costUsd : (n(d.costUsd) ?? null);
  const source = stored ? stored.costSource : d.costUsd !== undefined ? 'client' : null;
  return (
    <div className="llm-call" data-testid="llm-call-detail">
      <div className="muted small">
        {[d.provider, d.operation ?? 'chat'].filter(Boolean).map(String).join(' · ')}
        {d.responseModel && d.responseModel !== d.model ? ` · requested ${String(d.model)}` : ''}
      </div>
      <div className="figures">
        <div className="figure">
          <div className="value">{num(n(d.inputTokens))}</div>
          <div className="muted small">
            input tokens{n(d.cachedInputTokens) ? ` (${num(n(d.cachedInputTokens))} cached)` : ''}
          </div>
        </div>
        <div className="figure">
          <div className="value">{num(n(d.outputTokens))}</div>
          <div className="muted small">output tokens</div>
        </div>
        <div className="figure">
          <div className="value">{duration(n(d.durationMs))}</div>
          <div className="muted small">latency</div>
        </div>
        <div className="figure">
          <div className="value" data-testid="llm-call-cost">
            {usd(cost)}
          </div>
          <div className="muted small">
            {source === 'client'
              ? 'cost from the agent'
              : source === 'price_table'
                ? 'cost from the price table'
                : 'model without a price'}
          </div>
        </div>
      </div>
      {Array.isArray(d.finishReasons) && d.finishReasons.length > 0 && (
        <div className="muted small">finish: {(d.finishReasons as string[]).join(', ')}</div>
      )}
      {err && (
        <Section label={`Error${err.type ? ` · ${String(err.type)}` : ''}`}>
          <pre className="error-text">{String(err.message ?? '')}</pre>
        </Section>
      )}
    </div>
  );
}

function GuardBody({ event, calls, onJump }: { event: WardenEvent } & Linking) {
  const d = (event.data ?? {}) as Data;
  const provenance = linkProvenance(event, calls);
  const matched =
    (d.matchedGuardrails as {
      policyId: string;
      name: string;
      version: number;
      decision: string;
      reason: string;
    }[]) ?? [];
  return (
    <div className="guard">
      <div className="row">
        <span className="label">policy</span> <DecisionBadge decision={d.policyDecision as string} />
        <span className="label">effective</span> <DecisionBadge decision={d.effectiveDecision as string} />
        <Badge>{String(d.mode)}</Badge>
        {!!d.outcome && <Badge tone={d.outcome === 'ran' ? 'ok' : 'warn'}>{String(d.outcome)}</Badge>}
      </div>
      {matched.length > 0 ? (
        <ul className="matched">
          {matched.map((m) => (
            <li key={m.policyId}>
              <a href={`/guardrails/${m.policyId}`}>{m.name}</a>{' '}
              <span className="muted small">v{m.version}</span> <DecisionBadge decision={m.decision} />
              <div className="muted small">{m.reason}</div>
            </li>
          ))}
        </ul>
      ) : (
        <div className="muted small">No policy matched: the project's default decision applied.</div>
      )}
      {provenance && (
        <Section
          label={
            provenance.tainted > 0
              ? `Provenance · ${provenance.tainted} tainted argument${provenance.tainted === 1 ? '' : 's'}`
              : 'Provenance'
          }
        >
          <ProvenanceView provenance={provenance} onJump={onJump} />
        </Section>
      )}
    </div>
  );
}

function ToolCallCard({
  call,
  calls,
  current,
  onJump,
}: {
  call: ToolCall;
  current: string;
} & Linking) {
  const started = call.started?.data as Data | undefined;
  const done = (call.completed ?? call.failed)?.data as Data | undefined;
  const guard = call.guard?.data as Data | undefined;
  const steps: [string, WardenEvent | undefined][] = [
    ['guard', call.guard],
    ['approval', call.approvalRequested],
    ['decided', call.approvalResolved],
    ['started', call.started],
    [call.failed ? 'failed' : 'completed', call.failed ?? call.completed],
  ];
  return (
    <div className="tool-call">
      <div className="row spread">
        <div className="tool-name">{call.toolName}</div>
        <div className="row tight">
          {guard && <DecisionBadge decision={guard.policyDecision as string} />}
          {call.failed ? (
            <Badge tone="bad">failed</Badge>
          ) : call.completed ? (
            <Badge tone="ok">ok</Badge>
          ) : (
            <Badge>no result</Badge>
          )}
          {typeof done?.durationMs === 'number' && (
            <span className="muted small">{duration(done.durationMs)}</span>
          )}
        </div>
      </div>
      <div className="steps">
        {steps
          .filter((s): s is [string, WardenEvent] => !!s[1])
          .map(([label, e]) => (
            <button
              key={e.id}
              className={e.id === current ? 'step current' : 'step'}
              onClick={() => onJump(e.id)}
            >
              {label} <span className="mono">#{e.sequence}</span>
            </button>
          ))}
      </div>
      {started && (
        <Section label="Arguments">
          <JsonView value={started.arguments ?? {}} maxHeight={220} />
          {!!(started.riskLevel || started.actionType) && (
            <div className="row tight small">
              {!!started.riskLevel && <Badge tone="warn">risk {String(started.riskLevel)}</Badge>}
              {!!started.actionType && <Badge>{String(started.actionType)}</Badge>}
            </div>
          )}
        </Section>
      )}
      {call.completed && (
        <Section label="Result">
          <JsonView value={(call.completed.data as Data).result ?? null} maxHeight={220} />
        </Section>
      )}
      {call.failed && (
        <Section label="Error">
          <pre className="error-text">
            {String(((call.failed.data as Data).error as Data)?.message ?? '')}
          </pre>
        </Section>
      )}
      {guard && (
        <Section label="Guardrail decision">
          <GuardBody event={call.guard!} calls={calls} onJump={onJump} />
        </Section>
      )}
      {call.approvalResolved && (
        <Section label="Approval">
          <StatusBadge status={String((call.approvalResolved.data as Data).status)} />{' '}
          <span className="small">
            {String((call.approvalResolved.data as Data).decidedBy ?? '')}{' '}
            {String((call.approvalResolved.data as Data).comment ?? '')}
          </span>
        </Section>
      )}
    </div>
  );
}
