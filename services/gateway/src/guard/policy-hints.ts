import { randomUUID } from 'node:crypto';
import type { EventBus, Subscription } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import type { PolicyStore } from './policy-store';

/** A running follower of `policy-changes`. */
export interface PolicyHintFollower {
  /** Stops consuming (a follower still joining its group is stopped by `bus.close()`). */
  stop(): Promise<void>;
}

/**
 * Makes this gateway re-read its policies as soon as the api announces a change on
 * `policy-changes` (docs/decisions.md "Policy changes reach gateways…"). Every gateway must see
 * every hint, so each is its own consumer group (`warden-gateway-policies-<uuid>`), starting at the
 * end of the topic: hints older than the gateway are covered by its initial load. Joining a group
 * takes a few seconds, so this does not hold up the start; until then, and whenever Kafka is
 * unreachable, the store's poll alone applies changes (within `WARDEN_POLICY_REFRESH_MS`).
 * A hint only triggers {@link PolicyStore.wake}: what the gateway loads always comes from PostgreSQL.
 */
export function followPolicyChanges(
  bus: Pick<EventBus, 'subscribe'>,
  store: Pick<PolicyStore, 'wake'>,
  logger: Logger,
): PolicyHintFollower {
  let subscription: Subscription | undefined;
  let stopped = false;
  const groupId = `warden-gateway-policies-${randomUUID()}`;
  bus
    .subscribe({
      groupId,
      topics: [TOPICS.policyChanges],
      fromBeginning: false,
      // Hints are rare: idle fetches every 5 s instead of every 100 ms (a hint still arrives at once).
      maxWaitTimeMs: 5_000,
      handler: async ({ records }) => {
        logger.debug({ hints: records.length }, 'policy change announced; checking now');
        await store.wake();
      },
    })
    .then(
      async (s) => {
        if (stopped) return s.stop();
        subscription = s;
        logger.info({ groupId }, 'following policy-changes');
      },
      (err: unknown) =>
        logger.warn({ err, groupId }, 'not following policy-changes; the poll alone applies changes'),
    );
  return {
    stop: async () => {
      stopped = true;
      await subscription?.stop();
    },
  };
}
