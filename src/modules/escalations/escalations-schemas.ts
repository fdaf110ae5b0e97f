import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { CHANNEL_TYPES } from '../notifications/channels/channel.ts';
import { CHANNELS } from '../notifications/channels/registry.ts';

export const MAX_STEPS = 10;
export const MAX_TARGETS = 10;
export const MAX_DELAY_MINUTES = 1440;
export const MAX_REPEAT = 5;

const Id = Type.String({ minLength: 1, maxLength: 200 });

/** A channel target: its shape is the channel's own (checked against the registry when saved). */
const ChannelTarget = Type.Object({
  type: StringEnum(['channel'] as const),
  channel: StringEnum(CHANNEL_TYPES),
  target: Type.Unsafe<Record<string, unknown>>({
    description: `The channel's target: ${CHANNEL_TYPES.map((c) => `${c} \`${Object.keys((CHANNELS[c].target as { properties: object }).properties).join(', ')}\``).join('; ')}.`,
    anyOf: CHANNEL_TYPES.map((c) => CHANNELS[c].target),
  }),
}, { additionalProperties: false, description: 'A channel (a team room, a shared webhook).' });

export const Target = Type.Union([
  Type.Object({ type: StringEnum(['user'] as const), id: Id }, { additionalProperties: false, description: 'A member, paged by their contact methods (by email at their account address when they have none).' }),
  Type.Object({ type: StringEnum(['schedule'] as const), id: Id }, { additionalProperties: false, description: 'Whoever is on call in the schedule when the step fires.' }),
  ChannelTarget,
]);
export type Target = Static<typeof Target>;

export const Step = Type.Object({
  delayMinutes: Type.Integer({ minimum: 0, maximum: MAX_DELAY_MINUTES, description: 'Minutes after this step before the next one (or the next round) fires, 0–1440.' }),
  targets: Type.Array(Target, { minItems: 1, maxItems: MAX_TARGETS }),
}, { additionalProperties: false });
export type Step = Static<typeof Step>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  steps: Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS, description: `In order, 1–${MAX_STEPS}.` }),
  repeat: Type.Integer({ minimum: 0, maximum: MAX_REPEAT, description: 'How many more times the whole policy runs after its last step while nobody acknowledges, 0–5.' }),
};

export const EscalationPolicy = Type.Object({
  id: Type.String(),
  name: Type.String(),
  steps: Type.Array(Step),
  repeat: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}, { additionalProperties: false });
export type EscalationPolicy = Static<typeof EscalationPolicy>;

export const CreatePolicyBody = Type.Object({ name: editable.name, steps: editable.steps, repeat: Type.Optional({ ...editable.repeat, default: 0 }) }, { additionalProperties: false });
export type CreatePolicyBody = Static<typeof CreatePolicyBody>;
export const UpdatePolicyBody = UpdateBody(editable);
export type UpdatePolicyBody = Static<typeof UpdatePolicyBody>;
export const PolicyList = listOf(EscalationPolicy);
export const PolicyListQuery = Type.Object(PageQuery);
