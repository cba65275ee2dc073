import type { EventBus } from '@agent-warden/bus';
import { TOPICS, type PolicyChangeNotice } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';

/** Tells the gateways that a project's guardrails changed (a hint: they re-read PostgreSQL). */
export interface PolicyChangeNotifier {
  /** Called after the change was committed; never throws and never delays the answer. */
  changed(change: Omit<PolicyChangeNotice, 'changedAt'>): void;
}

/**
 * Publishes a {@link PolicyChangeNotice} on `policy-changes` (key = projectId) after each
 * committed policy write, so every gateway reloads at once instead of on its next poll
 * (docs/decisions.md "Policy changes reach gateways…"). Fire and forget: a hint that cannot be
 * published is logged (`policy change hint not published`) and the gateways' poll of the policy
 * fingerprint still applies the change within `WARDEN_POLICY_REFRESH_MS`.
 */
export class BusPolicyChangeNotifier implements PolicyChangeNotifier {
  constructor(
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly logger: Logger,
  ) {}

  changed(change: Omit<PolicyChangeNotice, 'changedAt'>): void {
    const value: PolicyChangeNotice = { ...change, changedAt: new Date().toISOString() };
    this.bus
      .publish(TOPICS.policyChanges, [{ key: change.projectId, value }])
      .catch((err: unknown) => this.logger.warn({ err, ...change }, 'policy change hint not published'));
  }
}
