import type { IntelligenceFigures } from '@agent-warden/contracts';
import { findRetries, type Retry } from './calls';
import { buildFacts, type SessionFacts } from './facts';
import { computeFigures } from './figures';
import { findDataFlows, type DataFlow } from './flow/data-flow';
import type { SessionInput } from './types';

/** What every analyser reads: the indexes, the figures, the data flows and the retries. */
export interface AnalysisContext {
  facts: SessionFacts;
  figures: IntelligenceFigures;
  flows: DataFlow[];
  retries: Retry[];
}

/** Builds the shared context of one session. Pure. */
export function buildContext(input: SessionInput): AnalysisContext {
  const facts = buildFacts(input);
  return {
    facts,
    figures: computeFigures(facts),
    flows: findDataFlows(facts),
    retries: findRetries(facts.toolCalls),
  };
}

/** Event ids of a flow: the result that first carried the value, then each sensitive call's events. */
export function flowEvidence(flow: DataFlow): string[] {
  const ids = [flow.sourceEvent.id];
  for (const s of flow.sinks) for (const id of s.call.eventIds) if (!ids.includes(id)) ids.push(id);
  return ids;
}
