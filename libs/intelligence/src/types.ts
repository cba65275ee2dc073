/**
 * The analysers' input types. They live in `@agent-warden/contracts` (`analysis.ts`) so that storage,
 * which loads them, does not depend on this package; re-exported here for the analysers.
 */
export type {
  AnalysisSession,
  AnalysisRun,
  AnalysisEvent,
  AnalysisApproval,
  AnalysisEvaluation,
  SessionInput,
} from '@agent-warden/contracts';
