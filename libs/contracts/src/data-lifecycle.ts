import { z } from 'zod';
import { SessionsListQuery } from './dashboard-api';
import { EventView, SessionView } from './read';

/**
 * Wire bodies of deletion, export and retention (docs/operations.md#retention-and-deletion,
 * docs/decisions.md "Deleting telemetry" and "Retention by whole sessions").
 */

/** Rows deleted per table (`events`, `runs`, `sessions`, …); tables with none are 0. */
export const DeletedCounts = z.record(z.string(), z.number().int().min(0)).meta({ id: 'DeletedCounts' });
export type DeletedCounts = z.infer<typeof DeletedCounts>;

/** Answer of `DELETE /v1/sessions/{id}`, `DELETE /v1/agents/{id}` and `DELETE /v1/projects/{id}/data`. */
export const DeletionResult = z
  .object({
    /** Rows deleted per table. */
    deleted: DeletedCounts,
    /** Pending approvals cancelled before the deletion (their waiting clients were told `cancelled`). */
    approvalsCancelled: z.number().int().min(0),
    /** Queued `session-ready` jobs dropped (intelligence that would have been computed for deleted sessions). */
    jobsDropped: z.number().int().min(0),
  })
  .meta({ id: 'DeletionResult' });
export type DeletionResult = z.infer<typeof DeletionResult>;

/** Longest retention window: 100 years. */
export const RETENTION_DAYS_MAX = 36_500;

/** `PUT /v1/projects/{id}/retention` body: days to keep telemetry, or null to keep it forever. */
export const RetentionSettingsRequest = z
  .object({
    retentionDays: z.number().int().min(1).max(RETENTION_DAYS_MAX).nullable(),
  })
  .strict()
  .meta({ id: 'RetentionSettingsRequest' });
export type RetentionSettingsRequest = z.infer<typeof RetentionSettingsRequest>;

/** One run of the retention job on a project. */
export const RetentionRun = z
  .object({
    /** `running` while a run holds the project (a lease; one that is older than an hour is taken over). */
    status: z.enum(['running', 'succeeded', 'failed']),
    /** `schedule` (the periodic job) or `manual` (`POST …/retention/run`). */
    trigger: z.enum(['schedule', 'manual']),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
    /** Sessions whose last event is before this instant are deleted (now − retentionDays). */
    cutoff: z.iso.datetime(),
    retentionDays: z.number().int(),
    /** Transactions used (each deletes at most one batch of sessions). */
    batches: z.number().int().min(0),
    /** Sessions deleted. */
    sessions: z.number().int().min(0),
    /** Rows deleted per table (events of dropped partitions are not counted: see `partitionsDropped`). */
    deleted: DeletedCounts,
    /**
     * Week partitions of the events table dropped whole because no project keeps anything in them
     * (docs/decisions.md "Events partitioned by week"); absent in runs recorded before partitioning.
     */
    partitionsDropped: z.number().int().min(0).optional(),
    /** Message of the error that stopped a failed run. */
    error: z.string().optional(),
  })
  .meta({ id: 'RetentionRun' });
export type RetentionRun = z.infer<typeof RetentionRun>;

/** `GET /v1/projects/{id}/retention`: the setting and the last run. */
export const RetentionView = z
  .object({
    retentionDays: z.number().int().nullable(),
    lastRun: RetentionRun.nullable(),
  })
  .meta({ id: 'RetentionView' });
export type RetentionView = z.infer<typeof RetentionView>;

/** `GET /v1/sessions/export` query: the sessions list's filters and time window, without paging. */
export const SessionsExportQuery = SessionsListQuery.omit({ limit: true, cursor: true }).meta({
  id: 'SessionsExportQuery',
});
export type SessionsExportQuery = z.infer<typeof SessionsExportQuery>;

/**
 * One line of an NDJSON export (`application/x-ndjson`): a `session` line, then one `event` line per
 * event of that session in replay order (sequence, then id), then the next session. Sessions come
 * newest first (`startedAt`, then id), as in the sessions list.
 */
export const ExportLine = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('session'), session: SessionView }),
    z.object({ kind: z.literal('event'), event: EventView }),
  ])
  .meta({ id: 'ExportLine' });
export type ExportLine = z.infer<typeof ExportLine>;
