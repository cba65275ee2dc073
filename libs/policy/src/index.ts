/**
 * @agent-warden/policy — the guardrail engine (docs/architecture.md#guardrail-policies, docs/architecture.md#guard-decision).
 * Pure and synchronous, no I/O: validate a policy body, compile policies once into closures, and
 * decide guarded calls in memory on the gateway's hot path. Dry runs and backtests use
 * `evaluateOne` on a compiled draft. Operators live in the registry (`src/operators/`).
 */
export { validatePolicy, MAX_MATCH_DEPTH, MAX_MATCH_NODES, type PolicyValidation } from './validate';
export { compilePolicy, evaluateOne, PolicyCompileError, DEFAULT_APPROVAL_TIMEOUT_SECONDS } from './compile';
export { createEngine, type Engine } from './engine';
export { describeMatch } from './rule-text';
export { listOperators, OPERATORS, OPERATOR_NAMES, type OperatorInfo, type OperatorName } from './registry';
export type { CheckContext, LeafTest, OperandKind, Operator } from './operators/operator';
export { MAX_REGEX_LENGTH } from './regex-safety';
export { ORIGINS } from './provenance';
export type {
  ArgumentProvenanceInput,
  ApprovalSettings,
  CompiledPolicy,
  EngineApproval,
  EngineOptions,
  EngineResult,
  EvaluationInput,
  EvaluationProvenance,
  PolicyIssue,
  StoredApproval,
  StoredPolicy,
} from './types';
