import type { ActionItem, IntelligenceDraft } from '@agent-warden/contracts';
import { findActionItems } from './action-items';
import { buildContext } from './context';
import { findRecommendations } from './recommendations';
import { buildStory } from './story';
import { buildSummary } from './summary';
import type { SessionInput } from './types';

/** The generator name of the analysers' output. */
export const DETERMINISTIC_GENERATOR = 'deterministic';

/**
 * Explains one session (docs/architecture.md#runtime-intelligence): summary with figures, story timeline,
 * action items and guardrail recommendations (draft policies, always `enabled: false`). Pure and
 * deterministic: the same input gives the same output; every event id it cites is the id of one of
 * `input.events`. Never throws for an input of the documented shape. `extra.actionItems` (the model
 * evaluator's, each citing events of the session) join the analysers' items and the summary's count.
 */
export function analyseSession(
  input: SessionInput,
  extra: { actionItems?: readonly ActionItem[] } = {},
): IntelligenceDraft {
  const ctx = buildContext(input);
  const actionItems = findActionItems(ctx, extra.actionItems);
  return {
    summary: buildSummary(ctx, actionItems),
    story: buildStory(ctx),
    actionItems,
    recommendations: findRecommendations(ctx),
    generator: DETERMINISTIC_GENERATOR,
  };
}
