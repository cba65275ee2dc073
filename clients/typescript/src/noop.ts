import type { Approval, GuardDecision } from '@agent-warden/contracts';
import type { RunStorage } from './context';
import type { FlushResult } from './flusher';
import { Guard } from './guard';
import { DISABLED_PROVENANCE } from './provenance';
import type { ResolvedOptions } from './options';
import { EventRecorder } from './recorder';
import type { Identity, IdentitySource } from './registration';
import type { Runtime } from './runtime';

/** Synthetic ids of the disabled client. */
export const DISABLED_IDENTITY: Readonly<Identity> = {
  agentId: 'disabled-agent',
  agentVersionId: 'disabled-version',
};

/**
 * Wiring of the disabled client (`enabled: false`): the same operations, synthetic ids, `ready()`
 * resolves at once, every guard answers `allow` (so every callback runs), and nothing is sent or
 * kept: no HTTP request, no timer, no process hook, no provenance (`provenanceOf` gives `undefined`).
 */
export function createNoopRuntime(options: ResolvedOptions, storage: RunStorage): Runtime {
  const identity: IdentitySource = {
    identity: { ...DISABLED_IDENTITY },
    ready: () => Promise.resolve(),
    ensure: () => Promise.resolve({ ...DISABLED_IDENTITY }),
  };
  const recorder = new EventRecorder(
    () => {},
    options.logger,
    options.sessionId,
    options.idFactory,
    options.clock,
  );
  const api = {
    evaluate: async (): Promise<GuardDecision> => allowDecision(options),
    getApproval: async (): Promise<Approval> => {
      throw new Error('the disabled client never waits for approvals');
    },
  };
  const guard = new Guard({
    api,
    identity,
    recorder,
    logger: options.logger,
    mode: options.mode,
    failMode: options.failMode,
  });
  const empty = (): Promise<FlushResult> =>
    Promise.resolve({ sent: 0, rejected: 0, dropped: 0, failed: 0, queued: 0 });
  return {
    options,
    logger: options.logger,
    recorder,
    guard,
    identity,
    storage,
    provenance: DISABLED_PROVENANCE,
    flush: empty,
    shutdown: empty,
    stats: () => ({ queued: 0, sent: 0, dropped: 0, failed: 0, rejected: 0, retries: 0 }),
  };
}

function allowDecision(options: ResolvedOptions): GuardDecision {
  return {
    evaluationId: 'disabled',
    mode: options.mode,
    policyDecision: 'allow',
    effectiveDecision: 'allow',
    matchedGuardrails: [],
    wouldBlock: false,
    wouldRequireApproval: false,
    evaluatedAt: new Date().toISOString(),
  };
}
