import type { Channel, ChannelType } from './channel.ts';
import { emailChannel } from './email.ts';
import { ntfyChannel } from './ntfy.ts';
import { slackChannel } from './slack.ts';
import { teamsChannel } from './teams.ts';
import { webhookChannel } from './webhook.ts';

/** Every channel, one line each: adding one is a file in this folder and a line here. */
export const CHANNELS: Readonly<Record<ChannelType, Channel<never>>> = {
  email: emailChannel as Channel<never>,
  webhook: webhookChannel as Channel<never>,
  slack: slackChannel as Channel<never>,
  teams: teamsChannel as Channel<never>,
  ntfy: ntfyChannel as Channel<never>,
};

export const channelOf = (type: ChannelType): Channel<unknown> => CHANNELS[type] as Channel<unknown>;
