import { buildWebhookPayload, renderBody, slackMessage } from '../src/webhooks/payload';

const delivery = {
  projectId: '0199a000-0000-7000-8000-000000000001',
  subscriptionId: '0199a000-0000-7000-8000-000000000002',
  eventType: 'approval.requested',
  createdAt: new Date('2026-11-24T12:00:00Z'),
};
const approval = {
  id: '0199a000-0000-7000-8000-0000000000a1',
  projectId: delivery.projectId,
  evaluationId: '0199a000-0000-7000-8000-0000000000e1',
  agentId: '0199a000-0000-7000-8000-0000000000b1',
  sessionId: '0199a000-0000-7000-8000-0000000000c1',
  toolName: 'deploy',
  policyId: null,
  status: 'pending',
  onTimeout: 'deny',
  request: { arguments: { token: 'secret-value' } },
  provenance: null,
  createdAt: new Date('2026-11-24T12:00:00Z'),
  expiresAt: new Date('2026-11-24T12:10:00Z'),
  decidedAt: null,
  decidedBy: null,
  comment: null,
};
const transition = {
  id: '0199a000-0000-7000-8000-0000000000d1',
  projectId: delivery.projectId,
  approvalId: approval.id,
  sessionId: approval.sessionId,
  fromStatus: null,
  toStatus: 'pending',
  actor: 'gateway',
  comment: null,
  at: new Date('2026-11-24T12:00:01Z'),
};

describe('webhook bodies', () => {
  const p = buildWebhookPayload(
    delivery,
    { kind: 'approval', transition, approval },
    'https://warden.example.com/',
  );

  it('json: type, the time of the transition, the approval and its dashboard link', () => {
    expect(p).toMatchObject({
      type: 'approval.requested',
      timestamp: '2026-11-24T12:00:01.000Z',
      data: {
        projectId: delivery.projectId,
        url: `https://warden.example.com/approvals?approval=${approval.id}`,
        approval: {
          id: approval.id,
          status: 'pending',
          fromStatus: null,
          toolName: 'deploy',
          actor: 'gateway',
        },
      },
    });
  });

  it('leaves the tool arguments out', () => {
    expect(renderBody(p, 'json')).not.toContain('secret-value');
    expect(renderBody(p, 'slack')).not.toContain('secret-value');
  });

  it('slack: text and blocks with a button to the approval', () => {
    const m = slackMessage(p);
    expect(m.text).toContain('Approval requested for `deploy`');
    expect(m.text).toContain(
      `<https://warden.example.com/approvals?approval=${approval.id}|Open in Agent Warden>`,
    );
    expect(m.blocks[1]).toEqual({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Open approval' },
          url: `https://warden.example.com/approvals?approval=${approval.id}`,
        },
      ],
    });
  });

  it('without a public URL: no link and no button', () => {
    const q = buildWebhookPayload(delivery, { kind: 'approval', transition, approval }, null);
    expect(q.data.url).toBeNull();
    expect(slackMessage(q).blocks).toHaveLength(1);
  });
});
