import type { ApprovalTransition } from '../api/types';
import type { EventLine } from './events';

/** Actors that are the service itself (`gateway`, `system:<reason>`), shown in brackets, not as "by". */
const serviceActor = (actor: string): boolean => actor === 'gateway' || actor.startsWith('system:');

/**
 * The timeline line of an approval transition (a service row, not an event): `title` reads like
 * "approval approved by user:alice@example.com" or "approval expired (system:timeout)" (the
 * creation: "approval requested (gateway)"); `detail` holds the comment and the tool.
 */
export function describeTransition(t: ApprovalTransition): EventLine {
  const what = t.fromStatus === null ? 'requested' : t.toStatus;
  const who = serviceActor(t.actor) ? `(${t.actor})` : `by ${t.actor}`;
  const tone =
    t.toStatus === 'approved'
      ? 'ok'
      : t.toStatus === 'denied'
        ? 'bad'
        : t.toStatus === 'pending'
          ? 'info'
          : 'warn';
  return {
    icon: '⚑',
    title: `approval ${what} ${who}`,
    detail: [t.comment ? `— ${t.comment}` : '', t.toolName ? `· ${t.toolName}` : '']
      .filter(Boolean)
      .join(' '),
    tone,
  };
}
