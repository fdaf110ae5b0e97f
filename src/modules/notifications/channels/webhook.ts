import { Type, type Static } from 'typebox';
import { iso } from '../../../lib/clock.ts';
import { displayUrl, signature, webhookBody } from '../notifications-fns.ts';
import { hostOf, postJson, type Channel, type ChannelDeps, type PageMessage, type SendResult } from './channel.ts';
import { messageContext } from './email.ts';

const Target = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https.' }),
  secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256, description: 'Signs the body: `X-AlertFlow-Signature: sha256=<hex HMAC-SHA256>`.' })),
}, { additionalProperties: false });
type Target = Static<typeof Target>;

/** The JSON body, with the signing headers when there is a secret. */
export function signedBody(page: PageMessage, secret: string | undefined): { body: string; headers: Record<string, string> } {
  const body = webhookBody(messageContext(page), page.deliveryId, page.event, iso(page.sentAt));
  return {
    body,
    headers: {
      'X-AlertFlow-Timestamp': String(Math.floor(page.sentAt / 1000)),
      'X-AlertFlow-Delivery': page.deliveryId,
      ...(secret !== undefined && { 'X-AlertFlow-Signature': signature(body, secret) }),
    },
  };
}

export function sendWebhook(deps: ChannelDeps, page: PageMessage, url: string, secret: string | undefined): Promise<SendResult> {
  const { body, headers } = signedBody(page, secret);
  return postJson(deps, url, body, headers);
}

/** A JSON POST of the alert and incident, signed when a secret is set; 5xx and network errors are retried. */
export const webhookChannel: Channel<Target> = {
  type: 'webhook',
  target: Target,
  describe: (t) => displayUrl(t.url),
  host: (t) => hostOf(t.url),
  render: (page, t) => JSON.parse(signedBody(page, t.secret).body) as unknown,
  send: (deps, page, t) => sendWebhook(deps, page, t.url, t.secret),
};
