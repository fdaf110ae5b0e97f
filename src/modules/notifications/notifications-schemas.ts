import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

import { CHANNEL_TYPES, type ChannelType } from './channels/channel.ts';

export const NOTIFICATION_SOURCES = ['workflow', 'escalation', 'heartbeat', 'handoff'] as const;
export type NotificationSource = (typeof NOTIFICATION_SOURCES)[number];
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'cancelled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** One entry of the delivery log: a notification a workflow action or an escalation step sent (or tried to) for an alert. */
export const Notification = Type.Object(
  {
    id: Type.String({ description: 'Also sent as `X-AlertFlow-Delivery` (webhooks) and in the Message-ID (emails), the same on every attempt.' }),
    alertId: Type.String(),
    incidentId: Nullable(Type.String()),
    source: StringEnum(NOTIFICATION_SOURCES, { description: 'What sent it: a workflow action, an escalation step, a heartbeat or a handoff notice.' }),
    workflowId: Nullable(Type.String({ description: 'For `source: workflow`.' })),
    actionIndex: Nullable(Type.Integer({ description: 'For `source: workflow`: the position of the action in the workflow\'s `actions`, from 0.' })),
    step: Nullable(Type.Integer({ description: 'For `source: escalation`: the policy step, from 1.' })),
    recipientId: Nullable(Type.String({ description: 'The member paged, when a member was (not a channel).' })),
    channel: StringEnum(CHANNEL_TYPES),
    target: Type.String({ description: 'The webhook URL, the email recipients (comma-separated) once resolved, the ntfy topic, or the host of a chat webhook (its URL is a secret).' }),
    status: StringEnum(NOTIFICATION_STATUSES, {
      description: '`pending` until delivered (retries included), then `sent` or `failed`; `cancelled`: an escalation page not sent because its incident was acknowledged, resolved or reassigned before it left (`lastError` says which).',
    }),
    attempts: Type.Integer(),
    lastError: Nullable(Type.String()),
    responseStatus: Nullable(Type.Integer({ description: 'The HTTP status of the webhook\'s last answer, or the SMTP reply code.' })),
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

/** The workflow actions this module delivers, as the workflow stores them (optional fields may be absent). */
export interface EmailActionInput {
  type: 'email';
  to?: string[] | undefined;
  /** A schedule id: its on-call user at send time also gets the email. */
  toOnCall?: string | null | undefined;
  /** The subject, placeholders already rendered; absent or empty: `[SEVERITY] title`. */
  subject?: string | undefined;
}
export interface WebhookActionInput {
  type: 'webhook';
  url: string;
  secret: string;
}
/** A page on one channel (an escalation step): the target as that channel's schema describes it. */
export interface PageActionInput {
  type: 'page';
  channel: ChannelType;
  target: unknown;
}
export type DeliveryAction = EmailActionInput | WebhookActionInput | PageActionInput;
