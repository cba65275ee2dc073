/**
 * @agent-warden/intelligence — runtime intelligence of a session (docs/architecture.md#runtime-intelligence): deterministic analysers (`analyseSession`), the optional LLM narrative and the optional model evaluator.
 * Pure apart from the narrative's and the evaluator's HTTP calls; no database access (the worker loads the input).
 */
export * from './types';
export * from './narrative';
export * from './evaluator';
export { analyseSession, DETERMINISTIC_GENERATOR } from './analyse';
export { DATA_FLOW_KIND, DESTRUCTIVE_KIND } from './recommendations';
export { FAILURE_CAUSE_KINDS } from './action-items';
