import type { Alert } from '../../src/modules/alerts/alerts-schemas.ts';
import type { NoticeMessage, PageMessage } from '../../src/modules/notifications/channels/channel.ts';

/** Pages and notices as channels render them, for the unit tests of each channel's rendering against its limits. */

export const ACK = 'https://alertflow.example.com/links/tok.ack';
export const RESOLVE = 'https://alertflow.example.com/links/tok.res';

export function alertOf(over: Partial<Alert> = {}): Alert {
  return {
    id: 'alt_1', title: 'Disk almost full on db1', severity: 'critical', status: 'firing', source: 'node-exporter',
    description: 'Only 3% left.', fingerprint: 'fp', labels: { host: 'db1', env: 'prod' },
    annotations: { runbook_url: 'https://runbooks.example.com/disk' }, integrationId: null, clientId: null, incidentId: 'inc_1',
    suppressionId: null, occurrences: 1, flapping: false, lastSeenAt: '2026-11-21T10:00:00.000Z', acknowledgedAt: null, acknowledgedBy: null,
    resolvedAt: null, resolvedBy: null, createdAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z', ...over,
  };
}
export const page = (alert: Alert): PageMessage => ({
  alert,
  incident: {
    id: 'inc_1', number: 7, title: 'Storage', severity: 'critical', status: 'triggered', assigneeId: null, alertCount: 1, clientId: null,
    workflowId: 'wf', groupKey: '', acknowledgedAt: null, resolvedAt: null, snoozedUntil: null, createdAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z',
  },
  alertUrl: 'https://alertflow.example.com/alerts/alt_1', acknowledgeUrl: ACK, resolveUrl: RESOLVE, deliveryId: 'ntf_1', event: 'escalation.step', sentAt: Date.UTC(2026, 10, 21),
});

// Everything a sender controls, long and hostile: markup, mentions, JSON breakers, control characters, astral characters.
export const HOSTILE = `<!channel> <@U123> *bold* &amp; <https://evil.example|click> "quote" \\ \u0000\u0007\u2028 ${'💥'.repeat(3000)} ${'x<>&"'.repeat(5000)}`;
export const hostile = alertOf({
  title: HOSTILE, description: HOSTILE,
  labels: Object.fromEntries(Array.from({ length: 63 }, (_, i) => [`k${i}<&>`, HOSTILE.slice(0, 4000)])),
  annotations: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`link${i}`, `https://example.com/${'a'.repeat(3000)}|>${i}`])),
});

export const texts = (v: unknown): string[] => {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(texts);
  if (v && typeof v === 'object') return Object.values(v).flatMap(texts);
  return [];
};


export const notice = (over: Partial<NoticeMessage> = {}): NoticeMessage => ({
  kind: 'notice', event: 'channel.test', subject: '[TEST] AlertFlow test page for Ops', text: 'This is a test page.', deliveryId: 'ntf_2', sentAt: Date.UTC(2026, 10, 21), ...over,
});
