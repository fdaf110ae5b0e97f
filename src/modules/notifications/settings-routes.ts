import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { MASKED_SECRET } from './channels/channel.ts';
import { ChannelParams, ChannelSetupBody, ChannelSetupList, ChannelSetupOne } from './notifications-schemas.ts';
import type { SettingsService } from './settings-service.ts';

const SECRETS = `Secrets (a bot token, a signing secret) are never returned: responses show \`${MASKED_SECRET}\`, and sending the mask back keeps the stored one.`;

/** An organization's own set-up of the channels that need one (its Slack app, its Telegram bot). */
export function settingsRoutes(app: Api, settings: SettingsService): void {
  app.get('/channel-settings', {
    config: { scope: 'integrations:read' },
    schema: apiSchema({
      scope: 'integrations:read', tag: 'channels', summary: 'List the channels this organization sets up itself',
      description: `Every channel that needs an organization's own set-up (a Slack app, a Telegram bot): how to set it up, its fields, whether it is set up, and the URLs of AlertFlow to give the provider. ${SECRETS}`,
    }, { response: { 200: ChannelSetupList } }),
  }, async (req) => ({ data: await settings.list(principalOf(req).orgId) }));

  app.put('/channel-settings/:channel', {
    config: { scope: 'integrations:write' },
    schema: apiSchema({
      scope: 'integrations:write', tag: 'channels', summary: 'Set up a channel for this organization',
      description: `The whole set-up of one channel. It is checked with the provider before it is stored (a bot token the provider refuses is 400, saying what the provider said). ${SECRETS}`,
    }, { params: ChannelParams, body: ChannelSetupBody, response: { 200: ChannelSetupOne } }),
  }, async (req) => ({ data: await settings.put(principalOf(req).orgId, actorOf(req), req.params.channel, req.body) }));

  app.delete('/channel-settings/:channel', {
    config: { scope: 'integrations:write' },
    schema: apiSchema({
      scope: 'integrations:write', tag: 'channels', summary: 'Remove a channel\'s set-up',
      description: 'The channel stops sending for this organization: its pages fail, saying it is not set up.',
    }, { params: ChannelParams, response: { 204: Type.Null({ description: 'Removed' }) } }),
  }, async (req, reply) => {
    await settings.remove(principalOf(req).orgId, actorOf(req), req.params.channel);
    return reply.code(204).send(null);
  });
}
