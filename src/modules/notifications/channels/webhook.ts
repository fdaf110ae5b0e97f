import { Type, type Static } from 'typebox';
import { iso } from '../../../lib/clock.ts';
import { displayUrl, signature, webhookBody } from '../notifications-fns.ts';
import { hostOf, isNotice, postJson, secretField, targetSchema, urlField, type Channel, type Message } from './channel.ts';
import { messageContext } from './email.ts';

const Target = targetSchema({
  url: urlField({ label: 'URL', description: 'Receives the page as a JSON POST.' }),
  secret: Type.Optional(secretField({ label: 'Signing secret', description: '16–256 characters; when set, the body is signed: `X-AlertFlow-Signature: sha256=<hex HMAC-SHA256>`.', secretMin: 16 })),
});
type Target = Static<typeof Target>;

/** The JSON body: a page's alert and incident, or a notice's subject and text. */
function bodyOf(message: Message): string {
  const sentAt = iso(message.sentAt);
  if (isNotice(message)) return JSON.stringify({ event: message.event, deliveryId: message.deliveryId, sentAt, notice: { subject: message.subject, text: message.text } });
  return webhookBody(messageContext(message), message.deliveryId, message.event, sentAt);
}

/** The JSON body, with the signing headers when there is a secret. */
export function signedBody(message: Message, secret: string | undefined): { body: string; headers: Record<string, string> } {
  const body = bodyOf(message);
  return {
    body,
    headers: {
      'X-AlertFlow-Timestamp': String(Math.floor(message.sentAt / 1000)),
      'X-AlertFlow-Delivery': message.deliveryId,
      ...(secret !== undefined && { 'X-AlertFlow-Signature': signature(body, secret) }),
    },
  };
}

/** A JSON POST of the alert and incident, signed when a secret is set; 5xx and network errors are retried. */
export const webhookChannel: Channel<Target> = {
  label: 'Webhook',
  about: 'A JSON POST of the alert and its incident, signed with HMAC-SHA256 when a secret is set.',
  uses: ['contact', 'escalation'],
  target: Target,
  describe: (t) => displayUrl(t.url),
  name: (t) => `Webhook ${hostOf(t.url) ?? ''}`.trim(),
  host: (t) => hostOf(t.url),
  render: (message, t) => JSON.parse(signedBody(message, t.secret).body) as unknown,
  send: (deps, message, t) => {
    const { body, headers } = signedBody(message, t.secret);
    return postJson(deps, t.url, body, headers);
  },
};
