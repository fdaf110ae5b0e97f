import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: StringEnum(ROLES),
    timezone: Type.Union([Type.String(), Type.Null()], { description: 'IANA time zone of the member\'s working hours (analytics counts pages outside them as nights and weekends); null: the organization\'s.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type User = Static<typeof User>;
export const UserList = listOf(User);
export const UserListQuery = Type.Object(PageQuery);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Zone = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'An IANA time zone such as Europe/Berlin, or null for the organization\'s.' });
export const NewPassword = Type.String({ minLength: 12, maxLength: 1024, description: 'At least 12 characters.' });

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    name: Name,
    role: StringEnum(ROLES, { description: 'Only an owner may add an owner.' }),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const PasswordLink = Type.Object(
  {
    url: Type.String({ description: 'The one-time link to set a password; works once, until `expiresAt`. Hand it to the person.' }),
    expiresAt: Timestamp,
    emailed: Type.Boolean({ description: 'Whether the link was also emailed to the person (SMTP_URL set and the server accepted it).' }),
  },
  { additionalProperties: false },
);

export const CreatedUser = Type.Object(
  { data: Type.Object({ ...User.properties, setPasswordLink: PasswordLink }, { additionalProperties: false }) },
  { additionalProperties: false },
);
export type CreatedUser = Static<typeof CreatedUser>['data'];

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Name),
    role: Type.Optional(StringEnum(ROLES, { description: 'Only an owner may make or unmake an owner; the last owner cannot be demoted (409).' })),
    timezone: Type.Optional(Zone),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UpdateMeBody = Type.Object({ name: Type.Optional(Name), timezone: Type.Optional(Zone) }, { additionalProperties: false, minProperties: 1 });

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 1024 }), newPassword: NewPassword },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const UserResponse = Type.Object({ data: User }, { additionalProperties: false });
