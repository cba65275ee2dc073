import { z } from 'zod';
import { Uuid } from './common';
import {
  DeletionResult,
  ExportLine,
  RetentionRun,
  RetentionSettingsRequest,
  RetentionView,
  SessionsExportQuery,
} from './data-lifecycle';
import { json, jsonBody, keyOrCookie, keyOrCookieErrors, problem } from './openapi-helpers';

/**
 * Deletion, NDJSON export and retention (docs/operations.md#retention-and-deletion). Deletion and
 * retention changes need admin; export needs read.
 */

const projectPath = z.object({
  projectId: z.string().meta({ description: 'The project id (UUID), or `current`' }),
});
const notMember = problem('No such project, or the caller is not a member of it (API key: not its project)');

/** An NDJSON response (`application/x-ndjson`): one {@link ExportLine} per line. */
const ndjson = (description: string) => ({
  description,
  content: { 'application/x-ndjson': { schema: ExportLine } },
});

const exportDescription =
  'NDJSON, one JSON object per line (schema `ExportLine`): a `{"kind":"session","session":…}` line, then one `{"kind":"event","event":…}` line per event of that session in replay order (sequence, then id). Streamed with keyset cursors: memory stays flat for any size; an error after the first line cuts the stream.';

/** `DELETE /v1/sessions/{sessionId}` (merged into that path's object in openapi.ts). */
export const sessionDeleteOperation = {
  summary:
    'Delete a session and every row of it (events, runs, evaluations, approvals, scores, intelligence) in one transaction, audited (admin)',
  description:
    'Pending approvals of the session are cancelled first and its queued intelligence job is dropped. A late event for the session afterwards starts a new session with that id (docs/decisions.md "Deleting telemetry").',
  security: keyOrCookie,
  requestParams: { path: z.object({ sessionId: Uuid }) },
  responses: {
    '200': json(DeletionResult, 'Deleted: rows per table'),
    ...keyOrCookieErrors,
    '404': problem('Nothing of this session is stored in the project'),
  },
};

/** `DELETE /v1/agents/{agentId}` (merged into that path's object in openapi.ts). */
export const agentDeleteOperation = {
  summary: 'Delete an agent, its versions and all their data in one transaction, audited (admin)',
  security: keyOrCookie,
  requestParams: { path: z.object({ agentId: Uuid }) },
  responses: {
    '200': json(DeletionResult, 'Deleted: rows per table'),
    ...keyOrCookieErrors,
    '404': problem('Unknown agent'),
  },
};

export const dataLifecyclePaths = {
  '/v1/sessions/export': {
    get: {
      summary: 'Export the sessions matching the sessions list filters with their events, as NDJSON (read)',
      description: exportDescription,
      security: keyOrCookie,
      requestParams: { query: SessionsExportQuery },
      responses: {
        '200': ndjson('The sessions, newest first, each followed by its events'),
        ...keyOrCookieErrors,
      },
    },
  },
  '/v1/sessions/{sessionId}/export': {
    get: {
      summary: 'Export one session with its events as NDJSON (read)',
      description: exportDescription,
      security: keyOrCookie,
      requestParams: { path: z.object({ sessionId: Uuid }) },
      responses: {
        '200': ndjson('The session line, then its events'),
        ...keyOrCookieErrors,
        '404': problem('Unknown session'),
      },
    },
  },
  '/v1/projects/{projectId}/data': {
    delete: {
      summary:
        "Delete the project's telemetry (sessions, events, runs, evaluations, approvals, scores, intelligence) in bounded batches, audited (admin there)",
      description:
        'Agents, policies, keys, members and the audit log stay. Resumable: an interrupted call leaves whole sessions deleted or kept; call again to finish.',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: {
        '200': json(DeletionResult, 'Deleted: rows per table'),
        ...keyOrCookieErrors,
        '404': notMember,
      },
    },
  },
  '/v1/projects/{projectId}/retention': {
    get: {
      summary: "The project's retention window and the retention job's last run (read there)",
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: { '200': json(RetentionView, 'Retention'), ...keyOrCookieErrors, '404': notMember },
    },
    put: {
      summary: 'Set the retention window in days, or null to keep telemetry forever; audited (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      requestBody: jsonBody(RetentionSettingsRequest),
      responses: { '200': json(RetentionView, 'Retention'), ...keyOrCookieErrors, '404': notMember },
    },
  },
  '/v1/projects/{projectId}/retention/run': {
    post: {
      summary: 'Run the retention job on the project now and answer the finished run (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: {
        '200': json(RetentionRun, 'The run'),
        ...keyOrCookieErrors,
        '404': notMember,
        '409': problem('The project has no retention window, or a run is in progress'),
      },
    },
  },
};
