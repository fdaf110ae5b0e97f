import type { Static } from 'typebox';
import { clip, hostOf, hostOnly, pageActions, pageParts, postJson, shrinkToFit, targetSchema, urlField, type Channel, type Message } from './channel.ts';

const Target = targetSchema({ webhookUrl: urlField({ label: 'Workflows webhook URL', description: 'A Microsoft Teams Workflows webhook URL ("Post to a channel when a webhook request is received").' }) });
type Target = Static<typeof Target>;

/** Teams refuses messages over 28 KB; a card is kept well below that. */
export const TEAMS_LIMITS = { bytes: 24_000, version: '1.4', facts: 30 } as const;

/**
 * Sender text made literal in a TextBlock, which Teams reads as Markdown (bold, italic, links, lists,
 * headings): every character that could open markup is backslash-escaped, and so is a line-start list or
 * heading marker. Without it an alert title could show as a link to anywhere.
 */
export function escapeTeamsMarkdown(s: string): string {
  return s
    .replace(/[\\`*_~[\](){}<>|!]/g, '\\$&')
    .replace(/^([ \t]*)(#+(?=\s)|[+-](?=\s)|\d+\.(?=\s))/gm, (_, indent: string, marker: string) =>
      `${indent}${/^\d/.test(marker) ? marker.replace('.', '\\.') : `\\${marker}`}`);
}

function card(message: Message, textMax: number, facts: number): Record<string, unknown> {
  const p = pageParts(message);
  const body: unknown[] = [
    { type: 'TextBlock', size: 'Large', weight: 'Bolder', wrap: true, text: `[${p.severity.toUpperCase()}] ${escapeTeamsMarkdown(clip(p.title, 280))}` },
    { type: 'FactSet', facts: [{ title: 'Severity', value: p.severity }, { title: 'Status', value: p.status }] },
  ];
  if (p.description && textMax > 0) body.push({ type: 'TextBlock', wrap: true, text: escapeTeamsMarkdown(clip(p.description, textMax)) });
  if (p.labels.length && facts > 0) body.push({ type: 'FactSet', facts: p.labels.slice(0, facts).map(([k, v]) => ({ title: clip(k, 100), value: clip(v, 300) })) });
  const actions = [
    ...pageActions(message).filter((a) => a.label !== 'Open').map((a) => ({ type: 'Action.OpenUrl', title: a.label, url: a.url })),
    ...p.links.slice(0, 5).filter(([, u]) => u.length <= 2000).map(([k, u]) => ({ type: 'Action.OpenUrl', title: clip(k, 50), url: u })),
  ];
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: TEAMS_LIMITS.version, body, actions },
    }],
  };
}

/**
 * The Adaptive Card message. Escaped text can take several bytes per character (a control character is six
 * in JSON), so the card is measured and its description and labels shrunk until it fits the budget.
 */
export const teamsPayload = (message: Message): Record<string, unknown> =>
  shrinkToFit((text, facts) => card(message, text, facts), (body) => Buffer.byteLength(JSON.stringify(body)) <= TEAMS_LIMITS.bytes, { text: 3000, fields: TEAMS_LIMITS.facts });

/** Teams Workflows webhooks: 5xx and network errors are retried, other answers are final. */
export const teamsChannel: Channel<Target> = {
  label: 'Microsoft Teams',
  about: 'An Adaptive Card posted by a Teams Workflows webhook; its buttons open the acknowledge and resolve links.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => hostOnly(t.webhookUrl),
  name: (t) => `Teams ${hostOf(t.webhookUrl) ?? ''}`.trim(),
  host: (t) => hostOf(t.webhookUrl),
  render: (message) => teamsPayload(message),
  send: (deps, message, t) => postJson(deps, t.webhookUrl, teamsPayload(message)),
};
