import { Type, type Static, type TProperties } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { MASKED_SECRET } from '../workflows/workflows-schemas.ts';

export { MASKED_SECRET };

export const CONTACT_TYPES = ['email', 'webhook', 'slack', 'teams', 'ntfy'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

/** Contact methods one member may have. */
export const MAX_METHODS = 20;
/** Rules in one member's list. */
export const MAX_RULES = 20;
/** The longest delay a rule may have: one day. */
export const MAX_AFTER_MINUTES = 1440;

const obj = <P extends TProperties>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description && { description }) });
const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description: `${description} http or https, without credentials; a literal private or loopback address is refused unless OUTBOUND_ALLOW permits it.` });
const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 256, description: `${description} Never returned: responses show \`${MASKED_SECRET}\`; sending \`${MASKED_SECRET}\` back keeps the stored one, leaving it out removes it.` });

/** Targets as received; the channels of the notifications module take the same shapes. */
export const targetIn = {
  email: obj({ to: Type.String({ format: 'email', maxLength: 320, description: 'The address to page.' }) }),
  webhook: obj({
    url: Url('Receives the page as a JSON POST.'),
    secret: Type.Optional(Secret('16–256 characters; when set, the body is signed with HMAC-SHA256.')),
  }),
  slack: obj({ webhookUrl: Url('A Slack incoming-webhook URL.') }),
  teams: obj({ webhookUrl: Url('A Microsoft Teams Workflows webhook URL.') }),
  ntfy: obj({
    serverUrl: Url('The ntfy server, e.g. https://ntfy.sh or your own.'),
    topic: Type.String({ pattern: '^[-_A-Za-z0-9]{1,64}$', description: 'The topic: 1–64 letters, digits, `-` or `_`.' }),
    token: Type.Optional(Secret('An access token for a protected topic.')),
  }),
};

/** Targets as shown: every secret masked. */
const targetOut = {
  email: obj({ to: Type.String() }),
  webhook: obj({ url: Type.String(), secret: Type.Optional(StringEnum([MASKED_SECRET] as const)) }),
  slack: obj({ webhookUrl: Type.String() }),
  teams: obj({ webhookUrl: Type.String() }),
  ntfy: obj({ serverUrl: Type.String(), topic: Type.String(), token: Type.Optional(StringEnum([MASKED_SECRET] as const)) }),
};

export type TargetOf<T extends ContactType> = Static<(typeof targetIn)[T]>;
/** A target as stored and planned: secrets in clear. */
export type Target = { [T in ContactType]: TargetOf<T> }[ContactType];

const kind = <T extends ContactType>(type: T) => StringEnum([type] as const);
const Label = Type.String({ minLength: 1, maxLength: 100, description: 'Your name for it; default: the address, host or topic.' });

const TYPES_ABOUT = '`email` `{to}`, `webhook` `{url, secret?}`, `slack` `{webhookUrl}`, `teams` `{webhookUrl}`, `ntfy` `{serverUrl, topic, token?}`.';

const createForms = CONTACT_TYPES.map((t) => obj({ type: kind(t), label: Type.Optional(Label), target: targetIn[t] }));
export type CreateContactMethodBody = { [T in ContactType]: { type: T; label?: string; target: TargetOf<T> } }[ContactType];
/** A new method: `oneOf` tagged by `type`, so a bad target field is reported once, at its own path. */
export const CreateContactMethodBody = Type.Unsafe<CreateContactMethodBody>({
  oneOf: createForms,
  discriminator: { propertyName: 'type' },
  description: `One form per \`type\`, each with its own target: ${TYPES_ABOUT}`,
});

export const UpdateContactMethodBody = Type.Object(
  {
    label: Type.Optional(Label),
    target: Type.Optional(Type.Unsafe<Target>({
      anyOf: CONTACT_TYPES.filter((t) => t !== 'teams').map((t) => targetIn[t]),
      description: `The whole new target, of the method's own type (the type cannot change: add a new method instead): ${TYPES_ABOUT}`,
    })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateContactMethodBody = Static<typeof UpdateContactMethodBody>;

const methodOut = <T extends ContactType>(t: T) => obj({
  id: Type.String(),
  type: kind(t),
  label: Type.String(),
  target: targetOut[t],
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ContactMethod = { [T in ContactType]: Static<ReturnType<typeof methodOut<T>>> }[ContactType];
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
