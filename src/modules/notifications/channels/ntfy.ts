import { Type, type Static } from 'typebox';
import { clip, hostOf, pageActions, pageParts, postJson, secretField, targetSchema, textField, urlField, type Channel, type Message } from './channel.ts';

const Target = targetSchema({
  serverUrl: urlField({ label: 'Server URL', description: 'The ntfy server, e.g. https://ntfy.sh or your own (self-hosted: no vendor relay).' }),
  topic: textField({ label: 'Topic', description: 'The topic subscribers listen on: 1–64 letters, digits, `-` or `_`.', maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  token: Type.Optional(secretField({ label: 'Access token', description: 'For a protected topic, sent as `Authorization: Bearer`.' })),
});
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

export function ntfyPayload(message: Message, target: Target): Record<string, unknown> {
  const p = pageParts(message);
  const text = [p.description || '(no description)', ...p.labels.map(([k, v]) => `${k}=${v}`)].join('\n');
  const actions = pageActions(message).map((a) => ({ action: 'view', label: a.label, url: a.url, ...(a.label !== 'Open' && { clear: true }) }));
  const open = actions.find((a) => a.label === 'Open');
  return {
    topic: target.topic,
    title: clip(`[${p.severity.toUpperCase()}] ${p.title}`.replace(/[\r\n]+/g, ' '), NTFY_LIMITS.title),
    message: clipBytes(text, NTFY_LIMITS.messageBytes),
    priority: NTFY_PRIORITY[p.severity] ?? 3,
    tags: [p.severity],
    ...(open && { click: open.url }),
    // ntfy takes at most three actions.
    actions: actions.slice(0, 3),
  };
}

/** ntfy: one JSON POST to the server root naming the topic; 5xx and network errors are retried. */
export const ntfyChannel: Channel<Target> = {
  label: 'ntfy push',
  about: 'A push notification through an ntfy server (ntfy.sh or your own) with Acknowledge and Resolve actions.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => `${t.serverUrl.replace(/\/+$/, '')}/${t.topic}`,
  name: (t) => `ntfy ${t.topic}`,
  host: (t) => hostOf(t.serverUrl),
  render: (message, t) => ntfyPayload(message, t),
  send: (deps, message, t) => postJson(deps, t.serverUrl.replace(/\/+$/, '') || t.serverUrl, ntfyPayload(message, t), t.token ? { Authorization: `Bearer ${t.token}` } : {}),
};
