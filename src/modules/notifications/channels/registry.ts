import type { Channel, ChannelTarget, ChannelUse } from './channel.ts';
import { discordChannel } from './discord.ts';
import { emailChannel } from './email.ts';
import { mattermostChannel } from './mattermost.ts';
import { ntfyChannel } from './ntfy.ts';
import { slackChannel } from './slack.ts';
import { slackAppChannel } from './slack-app.ts';
import { smsChannel } from './sms.ts';
import { teamsChannel } from './teams.ts';
import { telegramChannel } from './telegram.ts';
import { voiceChannel } from './voice.ts';
import { webhookChannel } from './webhook.ts';

/** Every channel, one line each: adding one is a file in this folder and a line here. */
export const CHANNELS = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  teams: teamsChannel,
  ntfy: ntfyChannel,
  sms: smsChannel,
  voice: voiceChannel,
  slack_app: slackAppChannel,
  telegram: telegramChannel,
  mattermost: mattermostChannel,
  discord: discordChannel,
} as const satisfies Record<string, Channel<never>>;

export type ChannelType = keyof typeof CHANNELS;
export const CHANNEL_TYPES = Object.keys(CHANNELS) as ChannelType[];

export const isChannelType = (s: string): s is ChannelType => Object.hasOwn(CHANNELS, s);
export const channelOf = (type: ChannelType): Channel => CHANNELS[type] as unknown as Channel;
/** The channels that may be used as `use`, in the registry's order. */
export const channelsFor = (use: ChannelUse): ChannelType[] => CHANNEL_TYPES.filter((t) => (CHANNELS[t].uses as readonly ChannelUse[]).includes(use));

/**
 * How a member without a contact method is reached (paged, told of a shift): by email at their account
 * address. The one place a consumer of channels learns of a particular one.
 */
export const ACCOUNT_FALLBACK: { channel: ChannelType; target: (accountEmail: string) => ChannelTarget } = { channel: 'email', target: (to) => ({ to }) };
