import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SEVERITIES } from '../alerts/alerts-fns.ts';
import { HEARTBEAT_STATES } from './heartbeats-fns.ts';

const YEAR_SECONDS = 31_536_000;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  intervalSeconds: Type.Integer({ minimum: 1, maximum: YEAR_SECONDS, description: 'How often the sender pings, in seconds (1 s to 1 year).' }),
  graceSeconds: Type.Integer({ minimum: 0, maximum: YEAR_SECONDS, description: 'How late a ping may be before the heartbeat is missed, in seconds.' }),
  severity: StringEnum(SEVERITIES, { description: 'Severity of the alert a missed heartbeat opens.' }),
  clientId: Nullable(Type.String({ maxLength: 200, description: 'The alert belongs to this client (unless `labels.client` names another).' })),
  labels: Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.String({ maxLength: 4096 }), {
    maxProperties: 63,
    description: 'Labels of the alert a missed heartbeat opens, besides `heartbeat: <name>` (which wins over a label of that key).',
  }),
  paused: Type.Boolean({ description: 'A paused heartbeat is not checked (pings are still recorded); resuming starts a full interval plus grace from then.' }),
};

const STATE_ABOUT = '`new`: never pinged (missed once its interval plus grace has passed since it was created); `up`: pinged in time; `down`: missed, its alert is open until the next ping; `paused`.';

export const Heartbeat = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    intervalSeconds: Type.Integer(),
    graceSeconds: Type.Integer(),
    severity: StringEnum(SEVERITIES),
    clientId: Nullable(Type.String()),
    labels: Type.Record(Type.String(), Type.String()),
    paused: Type.Boolean(),
    state: StringEnum(HEARTBEAT_STATES, { description: STATE_ABOUT }),
    lastPingAt: Nullable(Timestamp),
    nextDueAt: Timestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Heartbeat = Static<typeof Heartbeat>;

/** The ping credential appears here only: when the heartbeat is made and when its token is rotated. */
export const HeartbeatWithToken = Type.Object(
  {
    ...Heartbeat.properties,
    token: Type.String({ description: 'The ping token, shown this once (only a hash is kept).' }),
    pingUrl: Type.String({ description: '`GET` or `POST` this URL after each successful run: `{base_url}/api/inbound/heartbeat/{token}`.' }),
  },
  { additionalProperties: false },
);
export type HeartbeatWithToken = Static<typeof HeartbeatWithToken>;

export const CreateHeartbeatBody = Type.Object(
  {
    name: fields.name,
    intervalSeconds: fields.intervalSeconds,
    graceSeconds: Type.Optional({ ...fields.graceSeconds, default: 60 }),
    severity: Type.Optional({ ...fields.severity, default: 'critical' }),
    clientId: Type.Optional(fields.clientId),
    labels: Type.Optional(fields.labels),
    paused: Type.Optional(fields.paused),
  },
  { additionalProperties: false },
);
export type CreateHeartbeatBody = Static<typeof CreateHeartbeatBody>;

export const UpdateHeartbeatBody = UpdateBody(fields);
export type UpdateHeartbeatBody = Static<typeof UpdateHeartbeatBody>;

export const HeartbeatList = listOf(Heartbeat);
export const HeartbeatListQuery = Type.Object(PageQuery);

export const PingResponse = Type.Object(
  { data: Type.Object({ state: StringEnum(HEARTBEAT_STATES), lastPingAt: Timestamp, nextDueAt: Timestamp }, { additionalProperties: false }) },
  { additionalProperties: false },
);
