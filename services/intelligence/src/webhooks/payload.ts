import type { WebhookPayload } from '@agent-warden/contracts';
import type { WebhookDelivery, WebhookEventSource } from '@agent-warden/db';

/**
 * The body of a delivery (docs/operations.md#notifications): `json` is {@link WebhookPayload};
 * `slack` is a Slack incoming-webhook message (`text` as the notification's fallback, `blocks`
 * with a section and a link button; https://api.slack.com/messaging/webhooks) whose link opens the
 * approval or the session in the dashboard. Built once, at the first attempt, and kept.
 */
export function buildWebhookPayload(
  d: Pick<WebhookDelivery, 'projectId' | 'eventType' | 'createdAt' | 'subscriptionId'>,
  source: Exclude<WebhookEventSource, null>,
  publicUrl: string | null,
): WebhookPayload {
  const link = (path: string) => (publicUrl ? publicUrl.replace(/\/+$/, '') + path : null);
  const type = d.eventType as WebhookPayload['type'];
  if (source.kind === 'ping')
    return {
      type,
      timestamp: d.createdAt.toISOString(),
      data: { projectId: d.projectId, url: link('/settings/webhooks'), subscriptionId: d.subscriptionId },
    };
  if (source.kind === 'evaluation') {
    const e = source.evaluation;
    return {
      type,
      timestamp: e.evaluatedAt.toISOString(),
      data: {
        projectId: d.projectId,
        url: e.sessionId ? link(`/sessions/${e.sessionId}`) : null,
        evaluation: {
          id: e.id,
          toolName: e.toolName,
          agentId: e.agentId,
          sessionId: e.sessionId,
          policyDecision: e.policyDecision,
          effectiveDecision: e.effectiveDecision,
          matchedGuardrails: e.matchedGuardrails,
          evaluatedAt: e.evaluatedAt.toISOString(),
        },
      },
    };
  }
  const { transition: t, approval: a } = source;
  return {
    type,
    timestamp: t.at.toISOString(),
    data: {
      projectId: d.projectId,
      url: link(`/approvals?approval=${a.id}`),
      approval: {
        id: a.id,
        status: t.toStatus,
        fromStatus: t.fromStatus,
        actor: t.actor,
        comment: t.comment,
        toolName: a.toolName,
        agentId: a.agentId,
        sessionId: a.sessionId,
        policyId: a.policyId,
        expiresAt: a.expiresAt.toISOString(),
        decidedAt: a.decidedAt ? a.decidedAt.toISOString() : null,
      },
    },
  };
}

/** One line saying what happened, for Slack's `text` and the section. */
function headline(p: WebhookPayload): string {
  const tool = (name: string | null | undefined) => (name ? `\`${name}\`` : 'a tool call');
  switch (p.type) {
    case 'approval.requested':
      return `:raised_hand: Approval requested for ${tool(p.data.approval?.toolName)}`;
    case 'approval.decided':
      return `:white_check_mark: Approval for ${tool(p.data.approval?.toolName)} ${p.data.approval?.status} by ${p.data.approval?.actor}`;
    case 'approval.expired':
      return `:hourglass: Approval for ${tool(p.data.approval?.toolName)} timed out (${p.data.approval?.status})`;
    case 'guard.blocked':
      return `:no_entry: Blocked ${tool(p.data.evaluation?.toolName)}`;
    default:
      return ':wave: Agent Warden webhook test';
  }
}

/** The Slack form of a payload: `text` + `blocks` (a section, and a button to the dashboard when a public URL is set). */
export function slackMessage(p: WebhookPayload): { text: string; blocks: unknown[] } {
  const text = headline(p) + (p.data.url ? ` <${p.data.url}|Open in Agent Warden>` : '');
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: headline(p) } }];
  if (p.data.url)
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: p.type.startsWith('approval.') ? 'Open approval' : 'Open' },
          url: p.data.url,
        },
      ],
    });
  return { text, blocks };
}

/** The bytes to send for a subscription's format. */
export function renderBody(p: WebhookPayload, format: string): string {
  return JSON.stringify(format === 'slack' ? slackMessage(p) : p);
}
