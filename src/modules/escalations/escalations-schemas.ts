import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import type { ChannelTarget } from '../notifications/channels/channel.ts';
import { CHANNELS, channelsFor, type ChannelType } from '../notifications/channels/registry.ts';
import { shapesAbout } from '../notifications/channels/target-fns.ts';

export const MAX_STEPS = 10;
export const MAX_TARGETS = 10;
export const MAX_DELAY_MINUTES = 1440;
export const MAX_REPEAT = 5;

const Id = Type.String({ minLength: 1, maxLength: 200 });

/** The channels a step may post to: those the registry allows in escalations. */
export const ESCALATION_CHANNELS = channelsFor('escalation');
const CHANNEL_SHAPES = shapesAbout(ESCALATION_CHANNELS.map((c) => [c, CHANNELS[c]]));

/**
 * The three kinds of target. A channel's `target` is text by name here and checked against that channel's own
 * schema when the policy is saved (checkSteps), so a mistake is reported once, at its own path.
 */
const targetForms = (out: boolean) => [
  Type.Object({ type: StringEnum(['user'] as const), id: out ? Type.String() : Id }, { additionalProperties: false, description: 'A member, paged by their contact methods (by email at their account address when they have none).' }),
  Type.Object({ type: StringEnum(['schedule'] as const), id: out ? Type.String() : Id }, { additionalProperties: false, description: 'Whoever is on call in the schedule when the step fires.' }),
  Type.Object({
    type: StringEnum(['channel'] as const),
    channel: StringEnum(ESCALATION_CHANNELS),
    target: Type.Unsafe<ChannelTarget>(Type.Record(Type.String(), Type.String({ maxLength: 2048 }), { maxProperties: 5, description: `The channel's target: ${CHANNEL_SHAPES}. Secrets are never returned: responses show \`********\`, which sent back keeps the stored secret of the same target.` })),
  }, { additionalProperties: false, description: 'A channel (a team room, a shared webhook).' }),
];
export type Target =
  | { type: 'user'; id: string }
  | { type: 'schedule'; id: string }
  | { type: 'channel'; channel: ChannelType; target: ChannelTarget };

/** Received: `oneOf` with a discriminator on `type`, so only the form `type` names is checked and a problem is reported once. */
const TargetInput = Type.Unsafe<Target>({ oneOf: targetForms(false), discriminator: { propertyName: 'type' } });
const TargetOutput = Type.Unsafe<Target>({ anyOf: targetForms(true) });

const stepOf = (target: typeof TargetInput) => Type.Object({
  delayMinutes: Type.Integer({ minimum: 0, maximum: MAX_DELAY_MINUTES, description: 'Minutes after this step before the next one (or the next round) fires, 0–1440.' }),
  targets: Type.Array(target, { minItems: 1, maxItems: MAX_TARGETS }),
}, { additionalProperties: false });
export const Step = stepOf(TargetInput);
const StepOutput = stepOf(TargetOutput);
export type Step = Static<typeof Step>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  steps: Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS, description: `In order, 1–${MAX_STEPS}.` }),
  repeat: Type.Integer({ minimum: 0, maximum: MAX_REPEAT, description: 'How many more times the whole policy runs after its last step while nobody acknowledges, 0–5.' }),
};

export const EscalationPolicy = Type.Object({
  id: Type.String(),
  name: Type.String(),
  steps: Type.Array(StepOutput),
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

/** Who to page now about an incident: a member, or an escalation policy. */
export const ResponderBody = Type.Union([
  Type.Object({ userId: Type.String({ minLength: 1, maxLength: 200, description: 'A member, paged now by their contact methods (by email at their account address when they have none).' }) }, { additionalProperties: false }),
  Type.Object({ policyId: Type.String({ minLength: 1, maxLength: 200, description: 'An escalation policy: the incident escalates with it when triggered and not escalating; otherwise its first step pages once, now.' }) }, { additionalProperties: false }),
]);
export type ResponderBody = Static<typeof ResponderBody>;
