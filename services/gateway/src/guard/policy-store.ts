import type { Decision } from '@agent-warden/contracts';
import { loadActivePolicies, policyFingerprint, type PrismaClient } from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';
import { createEngine, type Engine, type StoredPolicy } from '@agent-warden/policy';

/**
 * Holds one compiled engine per project, in memory (docs/architecture.md#guardrail-policies: policies
 * compiled once, held by each gateway). Reloads from PostgreSQL when the policy fingerprint changes, checked every
 * `refreshMs` (ms) — the guarantee that a change reaches every gateway within about a second —
 * and at once on {@link wake} (a `policy-changes` hint from Kafka; docs/decisions.md "Policy
 * changes reach gateways…"). Checks never overlap: a wake during a check runs one more after it.
 */
export class PolicyStore {
  private engines = new Map<string, Engine>();
  private fingerprint = '';
  private timer?: NodeJS.Timeout;
  private readonly empty = new Map<string, Engine>();
  private running?: Promise<void>;
  private again = false;

  constructor(
    private readonly db: PrismaClient,
    private readonly logger: Logger,
    private readonly refreshMs = 500,
  ) {}

  /** Loads once and starts the refresh timer. Throws when the first load fails. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => this.wake(), this.refreshMs);
    this.timer.unref();
  }

  /**
   * Checks the fingerprint now (reloading when it changed), without waiting for the timer. Never
   * throws: a failed check is logged and the last good set stays in force.
   */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.refresh().catch((err) =>
            this.logger.warn({ err }, 'policy refresh failed; keeping the last set'),
          );
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reloads when the stored set changed. */
  async refresh(): Promise<void> {
    const fp = await policyFingerprint(this.db);
    if (fp === this.fingerprint) return;
    const { policies, defaults } = await loadActivePolicies(this.db);
    const byProject = new Map<string, StoredPolicy[]>();
    for (const p of policies) {
      const list = byProject.get(p.projectId) ?? [];
      list.push(p as unknown as StoredPolicy);
      byProject.set(p.projectId, list);
    }
    const engines = new Map<string, Engine>();
    for (const [projectId, def] of defaults) {
      const list = byProject.get(projectId) ?? [];
      const options = { defaultDecision: def as Decision };
      const prev = this.engines.get(projectId);
      try {
        // update() reuses the compiled form of unchanged policies.
        engines.set(projectId, prev ? prev.update(list, options) : createEngine(list, options));
      } catch (err) {
        // Policies are validated when written; if a stored set still fails to compile, keep the
        // last good engine of that project rather than dropping its guardrails.
        this.logger.error({ err, projectId }, 'policy set failed to compile; keeping the previous one');
        if (prev) engines.set(projectId, prev);
        else throw err;
      }
    }
    this.engines = engines;
    this.fingerprint = fp;
    this.logger.info({ policies: policies.length, projects: defaults.size }, 'policies loaded');
  }

  /** The engine of a project (an empty engine, default `allow`, for a project not loaded yet). */
  engineFor(projectId: string): Engine {
    let e = this.engines.get(projectId) ?? this.empty.get(projectId);
    if (!e) {
      e = createEngine([], { defaultDecision: 'allow' });
      this.empty.set(projectId, e);
    }
    return e;
  }
}
