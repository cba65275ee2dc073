/**
 * The optional LLM narrative (docs/architecture.md#runtime-intelligence): the model rewrites the texts of a
 * deterministic draft from its structured facts; citations are checked against the session.
 */
export { createNarrator, type Narrator } from './narrator';
export {
  narratorConfigFromEnv,
  NarratorConfigError,
  type NarratorConfig,
  DEFAULT_NARRATIVE_MODEL,
  DEFAULT_NARRATIVE_TIMEOUT_MS,
} from './config';
export { buildNarrativeFacts, type NarrativeFacts } from './facts';
export { NarrativeReply } from './reply';
export { NARRATIVE_SYSTEM_PROMPT } from './prompt';
