import type { LlmCall, LlmTotals } from '../api/types';
import { duration, num } from '../lib/format';
import { tokens, usd } from '../lib/llm';
import { Badge } from './ui';

/**
 * A session's LLM calls (docs/architecture.md#llm-calls): its totals (cost, tokens, calls) and each
 * call with model, tokens, latency and cost; a click selects the call's event in the replay.
 */
export function LlmCallsPanel({
  totals,
  calls,
  onJump,
}: {
  totals: LlmTotals;
  calls: LlmCall[];
  onJump: (eventId: string) => void;
}) {
  if (totals.calls === 0) return null;
  return (
    <section data-testid="llm-calls">
      <div className="row spread">
        <h3>LLM calls</h3>
        <span className="muted small">
          {num(totals.calls)} calls · {tokens(totals.inputTokens)} in / {tokens(totals.outputTokens)} out ·{' '}
          <strong data-testid="llm-calls-cost">{usd(totals.costUsd)}</strong>
        </span>
      </div>
      {totals.unpricedCalls > 0 && (
        <div className="muted small">
          {num(totals.unpricedCalls)} call{totals.unpricedCalls === 1 ? '' : 's'} of models without a price:
          not in the cost.
        </div>
      )}
      <ul className="llm-calls">
        {calls.map((c) => (
          <li key={c.id}>
            <button onClick={() => onJump(c.eventId)} data-testid="llm-call">
              <div className="row spread">
                <span className="mono small">{c.responseModel ?? c.model}</span>
                <span className="small">
                  {c.error ? <Badge tone="bad">{c.error.type ?? 'error'}</Badge> : usd(c.costUsd)}
                </span>
              </div>
              <div className="muted small">
                {tokens(c.inputTokens)} in / {tokens(c.outputTokens)} out · {duration(c.durationMs)}
                {c.costSource === 'client' && ' · cost from the agent'}
              </div>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
