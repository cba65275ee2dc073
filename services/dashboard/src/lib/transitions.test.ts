import type { ApprovalTransition } from '../api/types';
import { describeTransition } from './transitions';

const t = (over: Partial<ApprovalTransition>): ApprovalTransition => ({
  id: 't',
  approvalId: 'ap1',
  sessionId: 's',
  toolName: 'wire_money',
  fromStatus: 'pending',
  toStatus: 'approved',
  actor: 'user:alice@example.com',
  comment: null,
  at: '2024-01-01T00:00:00.000Z',
  ...over,
});

describe('describeTransition', () => {
  it('names the person or key that decided, with the comment', () => {
    const line = describeTransition(t({ comment: 'checked with finance' }));
    expect(line.title).toBe('approval approved by user:alice@example.com');
    expect(line.detail).toBe('— checked with finance · wire_money');
    expect(line.tone).toBe('ok');
    expect(describeTransition(t({ toStatus: 'denied', actor: 'api-key:k1' })).title).toBe(
      'approval denied by api-key:k1',
    );
  });

  it('shows the service as the actor of the creation and of a timeout', () => {
    expect(describeTransition(t({ fromStatus: null, toStatus: 'pending', actor: 'gateway' })).title).toBe(
      'approval requested (gateway)',
    );
    const expired = describeTransition(t({ toStatus: 'expired', actor: 'system:timeout', toolName: null }));
    expect(expired.title).toBe('approval expired (system:timeout)');
    expect(expired.detail).toBe('');
    expect(expired.tone).toBe('warn');
  });
});
