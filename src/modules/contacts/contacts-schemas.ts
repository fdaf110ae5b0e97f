import { Type, type Static, type TProperties } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { MASKED_SECRET, type ChannelTarget } from '../notifications/channels/channel.ts';
import { CHANNELS, channelsFor, type ChannelType } from '../notifications/channels/registry.ts';
import { maskedSchema, shapesAbout } from '../notifications/channels/target-fns.ts';

export { MASKED_SECRET };

/** The channels a member may page themselves by: those the registry allows as contact methods. */
export const CONTACT_TYPES = channelsFor('contact');
/** Those added by typing a target; the others a member links from the chat itself (`POST /users/me/contact-methods/link`). */
export const TYPED_TYPES = CONTACT_TYPES.filter((t) => !('linking' in CHANNELS[t]));
export const LINKED_TYPES = CONTACT_TYPES.filter((t) => 'linking' in CHANNELS[t]);
export type ContactType = ChannelType;

/** Contact methods one member may have. */
export const MAX_METHODS = 20;
/** Rules in one member's list. */
export const MAX_RULES = 20;
/** The longest delay a rule may have: one day. */
export const MAX_AFTER_MINUTES = 1440;

const obj = <P extends TProperties>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description && { description }) });

/** A target as stored and planned: secrets in clear. */
export type Target = ChannelTarget;

const kind = (type: ContactType) => StringEnum([type] as const);
const Label = Type.String({ minLength: 1, maxLength: 100, description: 'Your name for it; default: the address, host or topic.' });

const TYPES_ABOUT = shapesAbout(TYPED_TYPES.map((t) => [t, CHANNELS[t]]));

export type CreateContactMethodBody = { type: ContactType; label?: string; target: Target };
/** A new method: `oneOf` tagged by `type`, so a bad target field is reported once, at its own path. */
export const CreateContactMethodBody = Type.Unsafe<CreateContactMethodBody>({
  oneOf: TYPED_TYPES.map((t) => obj({ type: kind(t), label: Type.Optional(Label), target: CHANNELS[t].target }, CHANNELS[t].about)),
  discriminator: { propertyName: 'type' },
  description: `One form per \`type\`, each with its own target: ${TYPES_ABOUT}.`,
});

/** Target shapes once each (several channels take the same one, e.g. a webhook URL). */
const distinctTargets = [...new Map(TYPED_TYPES.map((t) => [JSON.stringify(CHANNELS[t].target), CHANNELS[t].target])).values()];

export const UpdateContactMethodBody = Type.Object(
  {
    label: Type.Optional(Label),
    target: Type.Optional(Type.Unsafe<Target>({
      anyOf: distinctTargets,
      description: `The whole new target, of the method's own type (the type cannot change: add a new method instead): ${TYPES_ABOUT}.`,
    })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateContactMethodBody = Static<typeof UpdateContactMethodBody>;

const methodOut = (t: ContactType) => obj({
  id: Type.String(),
  type: kind(t),
  label: Type.String(),
  target: maskedSchema(CHANNELS[t]),
  verified: Type.Boolean({ description: 'Whether it pages: a method whose channel confirms its targets first (a phone number) pages only once its owner entered the code sent to it; every other method is `true`.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ContactMethod = { id: string; type: ContactType; label: string; target: Target; verified: boolean; createdAt: string; updatedAt: string };
export const ContactMethod = Type.Unsafe<ContactMethod>({ anyOf: CONTACT_TYPES.map(methodOut) });

export const ContactMethodOne = Type.Object({ data: ContactMethod }, { additionalProperties: false });
export const ContactMethodList = Type.Object({ data: Type.Array(ContactMethod, { maxItems: MAX_METHODS }) }, { additionalProperties: false });

export const NotificationRule = obj({
  contactMethodId: Type.String({ minLength: 1, maxLength: 200, description: 'One of your contact methods.' }),
  afterMinutes: Type.Integer({ minimum: 0, maximum: MAX_AFTER_MINUTES, description: 'Minutes after you are paged (0 = at once, up to 1440).' }),
});
export type NotificationRule = Static<typeof NotificationRule>;

const Rules = Type.Array(NotificationRule, { maxItems: MAX_RULES, description: `In your order, 0–${MAX_RULES}; an empty list means the default (every method at once).` });
export const NotificationRulesBody = obj({ rules: Rules });
export type NotificationRulesBody = Static<typeof NotificationRulesBody>;
export const NotificationRulesResponse = obj({ data: obj({ rules: Rules }) });

export const VerifyBody = obj({ code: Type.String({ minLength: 1, maxLength: 20, description: 'The code sent to the method.' }) });
export type VerifyBody = Static<typeof VerifyBody>;

export const LinkBody = obj({ type: StringEnum(LINKED_TYPES, { description: 'A channel whose accounts are linked from the chat itself.' }) });
export type LinkBody = { type: ContactType };
export const LinkResponse = obj({
  data: obj({
    code: Type.String({ description: 'One-time, valid 15 minutes.' }),
    instructions: Type.String({ description: 'What to send, and where.' }),
    expiresAt: Timestamp,
  }),
});
