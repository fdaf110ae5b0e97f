import { Type, type Static } from 'typebox';
import { Actor, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

export const AuditEvent = Type.Object(
  {
    id: Type.String(),
    action: Type.String({ description: 'auth.sign_in, auth.sign_in_failed, auth.sign_out, org.setup, api_key.used, api_key.created, api_key.revoked, integration.created, integration.updated, integration.deleted, client.created, client.updated, client.deleted, suppression.created, suppression.updated, suppression.deleted, workflow.created, workflow.updated, workflow.deleted, workflow.enabled, workflow.disabled, schedule.created, schedule.updated, schedule.deleted, heartbeat.created, heartbeat.updated, heartbeat.token_rotated, heartbeat.deleted' }),
    actor: Actor,
    target: Nullable(Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false })),
    ip: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'What the action concerns. `api_key.used` counts a minute\'s requests of one key, method, path, status and address: `keyId`, `method`, `path`, `status`, `minute` (its start) and `uses`.' }),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);
export type AuditEvent = Static<typeof AuditEvent>;
export const AuditList = listOf(AuditEvent);
export const AuditQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(Type.String({ maxLength: 100, description: 'Only events with this action, e.g. `api_key.used`.' })),
  actorType: Type.Optional(StringEnum(['integration', 'api_key', 'user', 'system'], { description: 'Only events by this kind of actor.' })),
  actorId: Type.Optional(Type.String({ maxLength: 200, description: 'Only events by this actor (a user or API key id).' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only events before this time.' })),
});
export type AuditQuery = Static<typeof AuditQuery>;
