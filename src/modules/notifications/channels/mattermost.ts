import type { Static } from 'typebox';
import { clip, hostOf, hostOnly, isNotice, pageActions, pageParts, postJson, shrinkToFit, targetSchema, urlField, type Channel, type Message } from './channel.ts';

/**
 * Mattermost's incoming webhooks, with Slack-compatible message attachments (developers.mattermost.com:
 * "Incoming webhooks", "Message attachments"): `text`, `username` and `attachments` of `fallback`, `color`,
 * `title`, `title_link`, `text` and `fields`. Markdown is rendered in an attachment's text and fields, and
 * @mentions notify: what a sender wrote is escaped so it can be neither.
 */

const Target = targetSchema({ webhookUrl: urlField({ label: 'Incoming webhook URL', description: 'A Mattermost incoming webhook (https://your-mattermost/hooks/…): Integrations, Incoming Webhooks.' }) });
type Target = Static<typeof Target>;

/** A post is at most 16,383 characters on a default Mattermost server; a page keeps well below it. */
export const MATTERMOST_LIMITS = { post: 15_000, title: 250, text: 4000, fields: 20, field: 500 } as const;
const COLORS: Record<string, string> = { critical: '#b91c1c', high: '#ea580c', medium: '#ca8a04', low: '#2563eb', info: '#64748b' };

/** Literal text in Mattermost markdown: every markup character backslash-escaped, and `@` kept from mentioning anyone. */
export const escapeMattermost = (s: string): string =>
  s.replace(/[\\`*_~[\]()#>|!<]/g, '\\$&').replace(/@/g, '@\u200b');

function post(message: Message, textMax: number, fields: number): Record<string, unknown> {
  const p = pageParts(message);
  const title = clip(`[${p.severity.toUpperCase()}] ${p.title}`.replace(/[\r\n]+/g, ' '), MATTERMOST_LIMITS.title);
  const links = [...pageActions(message).filter((a) => a.label !== 'Open').map((a) => [a.label, a.url] as [string, string]), ...p.links];
  const text = [
    ...(p.description && textMax > 0 ? [escapeMattermost(clip(p.description, textMax))] : []),
    links.filter(([, u]) => u.length <= 1000).slice(0, 8).map(([k, u]) => `[${escapeMattermost(clip(k, 80))}](${u.replace(/[()\s]/g, encodeURIComponent)})`).join(' · '),
  ].join('\n\n');
  return {
    username: 'AlertFlow',
    text: escapeMattermost(title),
    attachments: [{
      // Plain text for notifications: not markdown, but no mention either.
      fallback: title.replace(/@/g, '@\u200b'),
      color: COLORS[p.severity] ?? COLORS.info,
      title: escapeMattermost(title),
      ...(!isNotice(message) && { title_link: message.alertUrl }),
      text,
      fields: [
        { title: 'Status', value: escapeMattermost(p.status), short: true },
        ...p.labels.slice(0, fields).map(([k, v]) => ({ title: escapeMattermost(clip(k, 100)), value: escapeMattermost(clip(v, MATTERMOST_LIMITS.field)), short: true })),
      ],
    }],
  };
}

/** Mattermost incoming webhooks: 5xx and network errors are retried, other answers are final. */
export const mattermostChannel: Channel<Target> = {
  label: 'Mattermost',
  about: 'A message with a Slack-compatible attachment, posted by a Mattermost incoming webhook; its links acknowledge and resolve.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => hostOnly(t.webhookUrl),
  name: (t) => `Mattermost ${hostOf(t.webhookUrl) ?? ''}`.trim(),
  host: (t) => hostOf(t.webhookUrl),
  render: (message) => mattermostPayload(message),
  send: (deps, message, t) => postJson(deps, t.webhookUrl, mattermostPayload(message)),
};

/** The post, its text and fields shrunk until it fits. */
export const mattermostPayload = (message: Message): Record<string, unknown> =>
  shrinkToFit((text, fields) => post(message, text, fields), (body) => JSON.stringify(body).length <= MATTERMOST_LIMITS.post, { text: MATTERMOST_LIMITS.text, fields: MATTERMOST_LIMITS.fields });
