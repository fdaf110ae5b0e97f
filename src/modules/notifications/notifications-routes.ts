import { principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import type { Config } from '../../config.ts';
import type { ChannelTarget } from './channels/channel.ts';
import { ChannelCatalogue, NotificationList, NotificationListQuery, NotificationOne, ProvidersView, TestTargetBody } from './notifications-schemas.ts';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.ts';
import type { NotificationsService } from './notifications-service.ts';

export function notificationsRoutes(app: Api, notifications: NotificationsService, deps: {
  /** The organization's saved targets of a channel (its escalation policies', its workflows'), secrets in clear. */
  savedTargets: (orgId: string, channel: string) => Promise<ChannelTarget[]>;
  providers: Config['providers'];
  baseUrl: string;
}): void {
  app.get('/alerts/:id/notifications', {
    config: { scope: 'alerts:read' },
    schema: apiSchema({
      scope: 'alerts:read',
      tag: 'alerts',
      summary: 'List an alert\'s notifications',
      description: 'The delivery log of the alert: every email and webhook its workflows sent or tried to send, newest first, with status (`pending` while retries remain, `sent`, `failed`), attempts, the last error and the last response status. A person\'s own target addressed by URL (a webhook, an ntfy server and topic) is shown in full to that person only; anyone else (an API key too) sees its host (`https://host/…`).',
    }, { params: IdParams, querystring: NotificationListQuery, response: { 200: NotificationList } }),
  }, (req) => {
    const { orgId, actor } = principalOf(req);
    return notifications.listForAlert(orgId, actor.type === 'user' ? actor.id : null, req.params.id, req.query);
  });

  app.get('/channels', {
    // Every member draws their contact methods' forms from it: every role holds users:read.
    config: { scope: 'users:read' },
    schema: apiSchema({
      scope: 'users:read',
      tag: 'channels',
      summary: 'List the notification channels',
      description: 'Every channel AlertFlow can page by, as its declaration in the channel registry says: its name, where it may be used (contact methods, escalation steps, workflow `notify` actions), the fields of its target (which are secrets, which are URLs), and whether it can send now (a channel whose provider the operator has not configured cannot).',
    }, { response: { 200: ChannelCatalogue } }),
  }, async (req) => ({ data: await notifications.catalogue(principalOf(req).orgId) }));

  app.post('/channels/:type/test', {
    config: { scope: 'escalations:write' },
    schema: apiSchema({
      scope: 'escalations:write',
      tag: 'channels',
      summary: 'Send a test page to a channel target',
      description: 'A clearly marked test page ("[TEST] …", asking for no answer) now, to a target of an escalation step or a workflow `notify` action, as typed or as saved: a secret sent as `********` stands for the saved one of the same target. Checked as saving checks it. Returns the delivery as it went: `sent`, or `failed` with the provider\'s error in `lastError`; one attempt, logged as `source: test`.',
    }, { params: Type.Object({ type: Type.String({ maxLength: 50 }) }), body: TestTargetBody, response: { 200: NotificationOne } }),
  }, async (req) => {
    const { orgId } = principalOf(req);
    const actor = actorOf(req);
    return { data: await notifications.testTarget(orgId, req.params.type, req.body.target, await deps.savedTargets(orgId, req.params.type), { name: actor.type === 'user' ? 'a member' : 'an API key' }) };
  });

  app.get('/channel-providers', {
    config: { scope: 'integrations:read' },
    schema: apiSchema({
      scope: 'integrations:read',
      tag: 'channels',
      summary: 'The operator\'s channel providers',
      description: 'What the operator configured in the environment for the channels that use it (Twilio for SMS and voice), read-only, with the URL to give each provider. The auth token is never shown; the account SID shows its last 4 characters.',
    }, { response: { 200: ProvidersView } }),
  }, () => {
    const t = deps.providers.twilio;
    return {
      data: {
        twilio: {
          configured: t !== null, accountSid: t ? `…${t.accountSid.slice(-4)}` : null, fromNumbers: t ? [...t.fromNumbers] : [],
          smsWebhookUrl: `${deps.baseUrl}/api/inbound/channels/sms/reply`,
        },
      },
    };
  });
}
