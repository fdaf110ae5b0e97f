import type { Static } from 'typebox';
import { clip, hostOf, hostOnly, isNotice, pageActions, pageParts, postJson, shrinkToFit, targetSchema, urlField, type Channel, type Message } from './channel.ts';

/**
 * Discord's webhooks (discord/discord-api-docs, "Execute Webhook" and "Embed Limits"): one embed per page
 * within Discord's limits (256-character title, 4,096 description, 25 fields of 256/1,024, 6,000 characters
 * in all), `allowed_mentions` empty so a sender's `@everyone` pings no one, and its markdown escaped.
 */

const Target = targetSchema({ webhookUrl: urlField({ label: 'Webhook URL', description: 'A Discord channel webhook (https://discord.com/api/webhooks/…): Channel settings, Integrations, Webhooks.' }) });
type Target = Static<typeof Target>;

export const DISCORD_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000 } as const;
const COLORS: Record<string, number> = { critical: 0xb91c1c, high: 0xea580c, medium: 0xca8a04, low: 0x2563eb, info: 0x64748b };

/** Literal text in Discord markdown: every markup character backslash-escaped (mentions are off for the whole message). */
export const escapeDiscord = (s: string): string => s.replace(/[\\`*_~|>[\]()#<:-]/g, '\\$&');

/** Characters Discord counts against its 6,000 (title, description, field names and values, footer). */
export const embedCharacters = (e: { title?: string; description?: string; fields?: Array<{ name: string; value: string }>; footer?: { text: string } }): number =>
  (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0) + (e.footer?.text.length ?? 0);

function embed(message: Message, descriptionMax: number, fields: number) {
  const p = pageParts(message);
  const links = [...pageActions(message).filter((a) => a.label !== 'Open').map((a) => [a.label, a.url] as [string, string]), ...p.links];
  const linkLine = links.filter(([, u]) => u.length <= 1000).slice(0, 8).map(([k, u]) => `[${escapeDiscord(clip(k, 60))}](${u.replace(/[()\s]/g, encodeURIComponent)})`).join(' · ');
  const description = [...(p.description && descriptionMax > 0 ? [escapeDiscord(clip(p.description, descriptionMax))] : []), linkLine].filter(Boolean).join('\n\n');
  return {
    title: clip(`[${p.severity.toUpperCase()}] ${p.title}`.replace(/[\r\n]+/g, ' '), DISCORD_LIMITS.title),
    ...(!isNotice(message) && { url: message.alertUrl }),
    description: clip(description, DISCORD_LIMITS.description),
    color: COLORS[p.severity] ?? COLORS.info,
    fields: [
      { name: 'Status', value: escapeDiscord(p.status), inline: true },
      ...p.labels.slice(0, fields).map(([k, v]) => ({ name: clip(k, DISCORD_LIMITS.fieldName), value: escapeDiscord(clip(v, 300)) || '\u200b', inline: true })),
    ].slice(0, DISCORD_LIMITS.fields),
    footer: { text: 'AlertFlow' },
    timestamp: new Date(message.sentAt).toISOString(),
  };
}

/** The message, its embed shrunk (description, then fields) until it is within Discord's 6,000 characters. */
export function discordPayload(message: Message): Record<string, unknown> {
  const e = shrinkToFit((text, fields) => embed(message, text, fields), (x) => embedCharacters(x) <= DISCORD_LIMITS.total, { text: 3000, fields: DISCORD_LIMITS.fields - 1 });
  return { username: 'AlertFlow', embeds: [e], allowed_mentions: { parse: [] } };
}

/** Discord webhooks, answered with the message (`?wait=true`) so a refused one says why; 429, 5xx and network errors are retried. */
export const discordChannel: Channel<Target> = {
  label: 'Discord',
  about: 'An embed posted by a Discord channel webhook, within Discord\'s limits; its links acknowledge and resolve.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => hostOnly(t.webhookUrl),
  name: (t) => `Discord ${hostOf(t.webhookUrl) ?? ''}`.trim(),
  host: (t) => hostOf(t.webhookUrl),
  render: (message) => discordPayload(message),
  async send(deps, message, t) {
    const url = new URL(t.webhookUrl);
    url.searchParams.set('wait', 'true');
    const r = await postJson(deps, url.href, discordPayload(message));
    // Discord's rate limit (429) passes with its Retry-After: the delivery's backoff waits longer.
    return r.responseStatus === 429 ? { ...r, outcome: 'retry' } : r;
  },
};
