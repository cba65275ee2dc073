import type { ApprovalStreamEvent, ApprovalTransitionView } from '@agent-warden/contracts';
import {
  approvalInboxItems,
  approvalTransitionsSince,
  databaseNow,
  expireDueApprovals,
  type PrismaClient,
} from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';

/** A listener of one project's approval changes. */
export interface FeedSubscriber {
  /** A transition and the approval after it. */
  onEvent(e: ApprovalStreamEvent): void;
  /** The feed closed (server stopping): end the stream. */
  onClose(): void;
}

/** Timing of the feed, ms. */
export interface FeedOptions {
  /** How often a project with subscribers is polled (default 500). */
  pollMs?: number;
  /**
   * How far back each poll looks again (default 5 000): a transition's `at` is its transaction's
   * start, so one may commit after a later one was already read; ids seen are skipped.
   */
  overlapMs?: number;
}

const BATCH = 500;

/** Polls `approval_transitions` of one project while it has subscribers. */
class ProjectPoller {
  readonly subscribers = new Set<FeedSubscriber>();
  private since: Date | undefined;
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: PrismaClient,
    private readonly projectId: string,
    private readonly logger: Logger,
    private readonly pollMs: number,
    private readonly overlapMs: number,
  ) {}

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let more = false;
    try {
      const first = this.since === undefined;
      if (first) this.since = await databaseNow(this.db);
      // Timeouts reach the stream (and the timeline) even when no agent waits on the long poll.
      await expireDueApprovals(this.db, this.projectId);
      const from = new Date(this.since!.getTime() - this.overlapMs);
      const rows = await approvalTransitionsSince(this.db, this.projectId, from, BATCH);
      more = rows.length === BATCH;
      const fresh: ApprovalTransitionView[] = [];
      for (const t of rows) {
        if (this.seen.has(t.id)) continue;
        const at = Date.parse(t.at);
        this.seen.set(t.id, at);
        if (at > this.since!.getTime()) this.since = new Date(at);
        // At the first poll, what happened before the subscribers came is in their snapshot.
        if (!first) fresh.push(t);
      }
      const horizon = this.since!.getTime() - 2 * this.overlapMs;
      for (const [id, at] of this.seen) if (at < horizon) this.seen.delete(id);
      if (fresh.length > 0 && !this.stopped) await this.emit(fresh);
    } catch (err) {
      this.logger.warn({ err, projectId: this.projectId }, 'approval feed poll failed');
    }
    this.schedule(more ? 0 : this.pollMs);
  }

  private async emit(transitions: ApprovalTransitionView[]): Promise<void> {
    const ids = [...new Set(transitions.map((t) => t.approvalId))];
    const items = new Map((await approvalInboxItems(this.db, this.projectId, ids)).map((a) => [a.id, a]));
    for (const transition of transitions) {
      const approval = items.get(transition.approvalId);
      if (!approval) continue;
      for (const s of this.subscribers) s.onEvent({ transition, approval });
    }
  }
}

/**
 * Approval changes of each project, for `GET /v1/approvals/stream`. One poller per project with
 * subscribers reads `approval_transitions` newer than the last seen every `pollMs`, so changes
 * made by any process (another api, a gateway applying a timeout) reach every stream; it also
 * applies due timeouts. Timers never keep the process alive; {@link close} ends every stream.
 */
export class ApprovalFeed {
  private readonly pollers = new Map<string, ProjectPoller>();
  private closed = false;
  private readonly pollMs: number;
  private readonly overlapMs: number;

  constructor(
    private readonly db: PrismaClient,
    private readonly logger: Logger,
    options: FeedOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.overlapMs = options.overlapMs ?? 5_000;
  }

  /** False once {@link close} was called. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** Subscribes to a project's changes; returns the unsubscribe function. */
  subscribe(projectId: string, s: FeedSubscriber): () => void {
    if (this.closed) {
      s.onClose();
      return () => {};
    }
    let p = this.pollers.get(projectId);
    if (!p) {
      p = new ProjectPoller(this.db, projectId, this.logger, this.pollMs, this.overlapMs);
      this.pollers.set(projectId, p);
      p.start();
    }
    p.subscribers.add(s);
    const poller = p;
    return () => {
      poller.subscribers.delete(s);
      if (poller.subscribers.size === 0 && this.pollers.get(projectId) === poller) {
        poller.stop();
        this.pollers.delete(projectId);
      }
    };
  }

  /** Stops polling and ends every subscriber's stream. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pollers.values()) {
      p.stop();
      for (const s of [...p.subscribers]) s.onClose();
      p.subscribers.clear();
    }
    this.pollers.clear();
  }
}
