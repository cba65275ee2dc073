import type { RecommendationDraft } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import { dataFlowRecommendations } from './data-flow';
import { destructiveRecommendations } from './destructive';

export { DATA_FLOW_KIND } from './data-flow';
export { DESTRUCTIVE_KIND } from './destructive';

/** Every guardrail recommendation of the session (draft policies, all `enabled: false`). Pure. */
export function findRecommendations(ctx: AnalysisContext): RecommendationDraft[] {
  return [...dataFlowRecommendations(ctx), ...destructiveRecommendations(ctx)];
}
