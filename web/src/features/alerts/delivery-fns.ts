import type { Notification, NotificationAnswer } from '../../api/types';

const DONE = { acknowledge: 'Acknowledged', resolve: 'Resolved' } as const;
const PAST = { acknowledge: 'acknowledged', resolve: 'resolved' } as const;

/** An answer that came back through a page, in words: "Acknowledged by SMS reply from +4915…". */
export function answerText(a: Pick<NotificationAnswer, 'action' | 'outcome' | 'via'>): string {
  if (a.outcome === 'done') return `${DONE[a.action]} by ${a.via}`;
  if (a.outcome === 'already') return `${a.via}: already ${PAST[a.action]}, nothing changed`;
  return `${a.via}: the incident no longer exists`;
}

/** A page's status in the log: ours, the provider's report when it differs (Twilio: delivered, no-answer…), and why it failed. */
export function deliveryStatus(n: Pick<Notification, 'status' | 'providerStatus' | 'lastError'>): string {
  const provider = n.providerStatus && n.providerStatus !== n.status ? ` · ${n.providerStatus}` : '';
  return `${n.status}${provider}${n.lastError ? ` (${n.lastError})` : ''}`;
}
