import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { CHANNEL_USES, MASKED_SECRET, type ChannelTarget } from './channels/channel.ts';
import { CHANNEL_TYPES, type ChannelType } from './channels/registry.ts';

export const NOTIFICATION_SOURCES = ['workflow', 'escalation', 'heartbeat', 'handoff', 'flapping', 'test', 'verification'] as const;
export type NotificationSource = (typeof NOTIFICATION_SOURCES)[number];
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'cancelled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** An answer that came back through a page's channel. */
export const NotificationAnswer = Type.Object(
  {
    action: StringEnum(['acknowledge', 'resolve'] as const),
    outcome: StringEnum(['done', 'already', 'gone'] as const, { description: '`done`: the incident moved; `already`: it was so already, nothing changed; `gone`: the incident no longer exists.' }),
    via: Type.String({ description: 'How it came, in words: "SMS reply from +4915…", "key 4 on a call to +4915…", "Slack button pressed by …".' }),
    userId: Nullable(Type.String({ description: 'The member who answered, when one was matched.' })),
    at: Timestamp,
  },
  { additionalProperties: false },
);
export type NotificationAnswer = Static<typeof NotificationAnswer>;

/** One entry of the delivery log: a page a workflow action or an escalation step sent (or tried to) for an alert, or a notice (a handoff, a test). */
export const Notification = Type.Object(
  {
    id: Type.String({ description: 'Also sent as `X-AlertFlow-Delivery` (webhooks) and in the Message-ID (emails), the same on every attempt.' }),
    alertId: Nullable(Type.String({ description: 'Null for a notice about no alert: a schedule\'s handoff, a test page.' })),
    incidentId: Nullable(Type.String()),
    source: StringEnum(NOTIFICATION_SOURCES, { description: 'What sent it: a workflow action, an escalation step, a heartbeat, a handoff notice, a test page or a contact method\'s verification code.' }),
    workflowId: Nullable(Type.String({ description: 'For `source: workflow`.' })),
    actionIndex: Nullable(Type.Integer({ description: 'For `source: workflow`: the position of the action in the workflow\'s `actions`, from 0.' })),
    step: Nullable(Type.Integer({ description: 'For `source: escalation`: the policy step, from 1.' })),
    recipientId: Nullable(Type.String({ description: 'The member paged, when a member was (not a channel).' })),
    channel: StringEnum(CHANNEL_TYPES),
    target: Type.String({ description: 'Where it went, as its channel describes it without secrets: the email address, the webhook URL, the ntfy topic, the host of a chat webhook (its URL is a secret).' }),
    status: StringEnum(NOTIFICATION_STATUSES, {
      description: '`pending` until delivered (retries included), then `sent` or `failed`; `cancelled`: an escalation page not sent because its incident was acknowledged, resolved or reassigned before it left (`lastError` says which).',
    }),
    attempts: Type.Integer(),
    lastError: Nullable(Type.String()),
    responseStatus: Nullable(Type.Integer({ description: 'The HTTP status of the webhook\'s last answer, or the SMTP reply code.' })),
    providerStatus: Nullable(Type.String({ description: 'What the provider last reported of it (Twilio: `delivered`, `undelivered`, `completed`, `no-answer`, …); a failure also marks it `failed`.' })),
    answers: Type.Array(NotificationAnswer, { description: 'The answers that came back through it, oldest first: an SMS reply, a key pressed on the call, a chat button.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    sentAt: Nullable(Timestamp),
  },
  { additionalProperties: false },
);
export type Notification = Static<typeof Notification>;

export const NotificationList = listOf(Notification);
export const NotificationListQuery = Type.Object(PageQuery);
export type NotificationListQuery = Static<typeof NotificationListQuery>;

/** What one delivery sends to: a channel of the registry and that channel's target (secrets in clear). */
export interface Delivery {
  channel: ChannelType;
  target: ChannelTarget;
}

const Field = Type.Object({
  name: Type.String(),
  label: Type.String(),
  hint: Type.String(),
  required: Type.Boolean(),
  secret: Type.Boolean({ description: `Never returned (\`${MASKED_SECRET}\` instead); sending the mask back keeps the stored value.` }),
  url: Type.Boolean({ description: 'An http(s) URL, checked by the outbound address policy.' }),
  maxLength: Nullable(Type.Integer()),
  pattern: Nullable(Type.String()),
  format: Nullable(Type.String()),
}, { additionalProperties: false });

/** One entry of the channel catalogue: what the dashboard draws a channel's form from. */
export const ChannelInfo = Type.Object(
  {
    type: StringEnum(CHANNEL_TYPES),
    label: Type.String(),
    about: Type.String(),
    uses: Type.Array(StringEnum(CHANNEL_USES), { description: 'Where it may be used: `contact` (a member\'s contact method), `escalation` (a channel target of a step), `workflow` (a `notify` action).' }),
    available: Type.Boolean({ description: 'False when it cannot send now (e.g. its provider is not configured); `unavailable` says why.' }),
    unavailable: Nullable(Type.String()),
    fields: Type.Array(Field, { description: 'The fields of its target, in order.' }),
    linked: Type.Boolean({ description: 'A member adds it by linking their own account (sending a one-time code to the bot), not by typing a target: `POST /users/me/contact-methods/link`.' }),
    verified: Type.Boolean({ description: 'Its targets page only once their owner confirmed a code sent to them (`send-code`, `verify`).' }),
  },
  { additionalProperties: false },
);
export type ChannelInfo = Static<typeof ChannelInfo>;

/** An organization's set-up of a channel that needs one (its Slack app, its Telegram bot). */
export const ChannelSetup = Type.Object(
  {
    channel: StringEnum(CHANNEL_TYPES),
    label: Type.String(),
    about: Type.String({ description: 'How to set it up.' }),
    configured: Type.Boolean(),
    settings: Nullable(Type.Record(Type.String(), Type.String(), { description: `The saved settings, secrets as \`${MASKED_SECRET}\`.` })),
    fields: Type.Array(Field, { description: 'The fields of the settings, in order.' }),
    urls: Type.Record(Type.String(), Type.String(), { description: 'URLs of AlertFlow to give the provider (an interactivity URL), by name.' }),
    updatedAt: Nullable(Timestamp),
  },
  { additionalProperties: false },
);
export type ChannelSetup = Static<typeof ChannelSetup>;
export const ChannelSetupList = Type.Object({ data: Type.Array(ChannelSetup) }, { additionalProperties: false });
export const ChannelSetupOne = Type.Object({ data: ChannelSetup }, { additionalProperties: false });
export const ChannelSetupBody = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2048 }), { maxProperties: 20, description: 'The settings\' fields (see `fields` of `GET /channel-settings`); a secret sent as the mask keeps the stored one.' });
export const ChannelParams = Type.Object({ channel: Type.String({ maxLength: 50 }) });
export const ChannelCatalogue = Type.Object({ data: Type.Array(ChannelInfo) }, { additionalProperties: false });
export const NotificationOne = Type.Object({ data: Notification }, { additionalProperties: false });

/** A channel target to send a test page to: as typed, or as saved (a secret sent as the mask stands for the saved one of the same target). */
export const TestTargetBody = Type.Object({ target: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2048 }), { maxProperties: 10 }) }, { additionalProperties: false });
export type TestTargetBody = Static<typeof TestTargetBody>;

/** The operator's providers, as the dashboard's set-up page shows them (read-only: they come from the environment). */
export const ProvidersView = Type.Object({
  data: Type.Object({
    twilio: Type.Object({
      configured: Type.Boolean(),
      accountSid: Nullable(Type.String({ description: 'Its last 4 characters only.' })),
      fromNumbers: Type.Array(Type.String()),
      smsWebhookUrl: Type.String({ description: 'What to set as the messaging webhook (HTTP POST) of each Twilio number, for SMS replies.' }),
    }, { additionalProperties: false }),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
