import type { Static } from 'typebox';
import { clip, hostOf, hostOnly, pageActions, pageParts, postJson, targetSchema, urlField, type Channel, type Message } from './channel.ts';

const Target = targetSchema({ webhookUrl: urlField({ label: 'Incoming webhook URL', description: 'A Slack incoming webhook URL (https://hooks.slack.com/services/…).' }) });
type Target = Static<typeof Target>;

/** Slack's documented limits: 50 blocks a message, 3,000 characters of section text, 150 of header text, 75 of button text. */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, headerText: 150, buttonText: 75, buttonUrl: 3000, fallbackText: 3000 } as const;

/** mrkdwn control characters: `&`, `<` and `>` are the only ones Slack asks to escape; text can then not form a link or mention. */
export const escapeMrkdwn = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
/** A URL inside `<url|text>`: its own `|`, `<` and `>` would end the link early. */
const linkUrl = (u: string): string => u.replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E');

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) } });
/** Joins escaped lines up to the section limit, so a cut never falls inside an escape or a link. */
function lines(items: string[]): string {
  let out = '';
  for (const item of items) {
    const next = out === '' ? item : `${out}\n${item}`;
    if (next.length > SLACK_LIMITS.sectionText - 2) return `${out}\n…`;
    out = next;
  }
  return out;
}

/** The link buttons of a page sent by a webhook: they open the acknowledge and resolve links. */
const linkButtons = (message: Message): unknown[] => pageActions(message).map((a) => ({
  type: 'button', text: { type: 'plain_text', text: a.label === 'Open' ? 'Open in AlertFlow' : a.label }, url: a.url.slice(0, SLACK_LIMITS.buttonUrl),
  action_id: a.label.toLowerCase(), ...(a.label === 'Acknowledge' && { style: 'primary' }),
}));

/**
 * The Block Kit message of a page or notice: `buttons` are the link buttons of an incoming webhook, or the
 * Slack app's own (slack-app.ts); `state` says what became of the incident (the app's updated message).
 */
export function slackPayload(message: Message, buttons: unknown[] = linkButtons(message), state: string | null = null): Record<string, unknown> {
  const p = pageParts(message);
  const headline = `${state ? `[${state.toUpperCase()}] ` : ''}[${p.severity.toUpperCase()}] ${p.title}`;
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(headline, SLACK_LIMITS.headerText), emoji: false } },
    section(`*Severity:* ${escapeMrkdwn(p.severity)}   *Status:* ${escapeMrkdwn(state ?? p.status)}`),
  ];
  if (p.description) blocks.push(section(escapeMrkdwn(clip(p.description, SLACK_LIMITS.sectionText - 200))));
  if (p.labels.length) blocks.push(section(lines(['*Labels*', ...p.labels.map(([k, v]) => `\`${escapeMrkdwn(clip(k, 100))}\` = ${escapeMrkdwn(clip(v, 300))}`)])));
  blocks.push(section(lines(['*Links*', ...p.links.map(([k, v]) => `<${linkUrl(v)}|${escapeMrkdwn(clip(k, 100))}>`)])));
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return { text: clip(headline, SLACK_LIMITS.fallbackText), blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

/** Slack incoming webhooks: a Block Kit message; 5xx and network errors are retried, other answers are final. */
export const slackChannel: Channel<Target> = {
  label: 'Slack (incoming webhook)',
  about: 'A Block Kit message to the channel of a Slack incoming webhook; its buttons open the acknowledge and resolve links.',
  uses: ['contact', 'escalation', 'workflow'],
  target: Target,
  describe: (t) => hostOnly(t.webhookUrl),
  name: (t) => `Slack ${hostOf(t.webhookUrl) ?? ''}`.trim(),
  host: (t) => hostOf(t.webhookUrl),
  render: (message) => slackPayload(message),
  send: (deps, message, t) => postJson(deps, t.webhookUrl, slackPayload(message)),
};
