import { Type, type Static } from 'typebox';
import { clip, hostOf, pageParts, postJson, type Channel, type PageMessage } from './channel.ts';

const Target = Type.Object({
  serverUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'The ntfy server, e.g. https://ntfy.example.com (self-hosted: no vendor relay).' }),
  topic: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The topic subscribers listen on.' }),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'An access token, sent as `Authorization: Bearer`.' })),
}, { additionalProperties: false });
type Target = Static<typeof Target>;

/** ntfy's priorities, 1 (min) to 5 (max, a phone's alarm). */
export const NTFY_PRIORITY: Record<string, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 2 };
/** ntfy keeps messages up to 4,096 bytes by default (longer ones become attachments). */
export const NTFY_LIMITS = { title: 250, messageBytes: 3500 } as const;

/** Cut to whole characters within a byte budget. */
function clipBytes(s: string, bytes: number): string {
  if (Buffer.byteLength(s) <= bytes) return s;
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(`${out}${ch}…`) > bytes) break;
    out += ch;
  }
  return `${out}…`;
}

export function ntfyPayload(page: PageMessage, target: Target): Record<string, unknown> {
  const p = pageParts(page);
  const text = [p.description || '(no description)', ...p.labels.map(([k, v]) => `${k}=${v}`)].join('\n');
  const actions = [
    ...(page.acknowledgeUrl ? [{ action: 'view', label: 'Acknowledge', url: page.acknowledgeUrl, clear: true }] : []),
    ...(page.resolveUrl ? [{ action: 'view', label: 'Resolve', url: page.resolveUrl, clear: true }] : []),
    { action: 'view', label: 'Open', url: page.alertUrl },
  ];
  return {
    topic: target.topic,
    title: clip(`[${p.severity.toUpperCase()}] ${p.title}`.replace(/[\r\n]+/g, ' '), NTFY_LIMITS.title),
    message: clipBytes(text, NTFY_LIMITS.messageBytes),
    priority: NTFY_PRIORITY[p.severity] ?? 3,
    tags: [p.severity],
    click: page.alertUrl,
    // ntfy takes at most three actions.
    actions: actions.slice(0, 3),
  };
}

/** ntfy: one JSON POST to the server root naming the topic; 5xx and network errors are retried. */
export const ntfyChannel: Channel<Target> = {
  type: 'ntfy',
  target: Target,
  describe: (t) => `${t.serverUrl.replace(/\/+$/, '')}/${t.topic}`,
  host: (t) => hostOf(t.serverUrl),
  render: (page, t) => ntfyPayload(page, t),
  send: (deps, page, t) => postJson(deps, t.serverUrl.replace(/\/+$/, '') || t.serverUrl, ntfyPayload(page, t), t.token ? { Authorization: `Bearer ${t.token}` } : {}),
};
