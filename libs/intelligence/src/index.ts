/**
 * @agent-warden/intelligence — runtime intelligence of a session (docs/architecture.md#runtime-intelligence): deterministic analysers (`analyseSession`) and the optional LLM narrative.
 * Pure apart from the narrative's HTTP call; no database access (the worker loads the input).
 */
export * from './types';
export * from './narrative';
export { analyseSession, DETERMINISTIC_GENERATOR } from './analyse';
export { DATA_FLOW_KIND, DESTRUCTIVE_KIND } from './recommendations';
export { FAILURE_CAUSE_KINDS } from './action-items';
