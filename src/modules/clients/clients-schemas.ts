import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

/** What `labels.client` of an alert is matched against: lower-case, so `Acme` in a label is not a second client. */
export const SLUG_PATTERN = '^[a-z0-9._-]+$';
const SLUG_DESCRIPTION = 'Unique in the organization; lower-case letters, digits, `-`, `_` and `.` (1–100 characters). An alert whose `labels.client` equals it belongs to this client.';

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  slug: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: SLUG_PATTERN,
    description: SLUG_DESCRIPTION,
  }),
  contactEmail: Nullable(Type.String({ format: 'email', maxLength: 320 })),
  notes: Nullable(Type.String({ maxLength: 10_000 })),
  reportRecipients: Type.Array(Type.String({ format: 'email', maxLength: 320 }), {
    maxItems: 20, uniqueItems: true,
    description: 'Who receives the client\'s monthly report by email, on the 1st of each month (in the organization\'s time zone) for the month before; empty: nobody.',
  }),
};

export const Client = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String({ description: SLUG_DESCRIPTION }),
    contactEmail: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    reportRecipients: Type.Array(Type.String(), { description: 'Who receives the monthly report by email.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Client = Static<typeof Client>;

export const CreateClientBody = Type.Object(
  {
    name: fields.name, slug: fields.slug, contactEmail: Type.Optional(fields.contactEmail), notes: Type.Optional(fields.notes),
    reportRecipients: Type.Optional(fields.reportRecipients),
  },
  { additionalProperties: false },
);
export type CreateClientBody = Static<typeof CreateClientBody>;

export const UpdateClientBody = UpdateBody(fields);
export type UpdateClientBody = Static<typeof UpdateClientBody>;

export const ClientList = listOf(Client);
export const ClientListQuery = Type.Object(PageQuery);
