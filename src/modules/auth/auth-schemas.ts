import { Type, type Static } from 'typebox';
import { ErrorBody, StringEnum, Timestamp } from '../../http/schemas.ts';
import { NewPassword, ROLES } from '../users/users-schemas.ts';

export const SessionView = Type.Object(
  {
    user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), role: StringEnum(ROLES) }, { additionalProperties: false }),
    organization: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    scopes: Type.Array(Type.String(), { description: 'What this session may do: the scopes of the role (owner/admin: all, including `users:write`; member: every `:read` scope, `alerts:write`, `incidents:write`).' }),
    csrfToken: Type.String({ description: 'Send as `X-CSRF-Token` on every request with the session cookie whose method is not GET, HEAD or OPTIONS.' }),
    expiresAt: Timestamp,
  },
  { additionalProperties: false },
);
export type SessionView = Static<typeof SessionView>;
export const SessionResponse = Type.Object({ data: SessionView }, { additionalProperties: false });

const Email = Type.String({ minLength: 3, maxLength: 320 });
const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Password,
    organizationId: Type.Optional(Type.String({ maxLength: 200, description: 'Needed only when the email and password match people in several organizations (409 lists them).' })),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const SetupBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the setup link the server logged at start.' }),
    organizationName: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Email,
    password: Type.String({ minLength: 12, maxLength: 1024, description: 'At least 12 characters.' }),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

export const SetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The `token` of the set-password link made when the member was added.' }),
    password: NewPassword,
  },
  { additionalProperties: false },
);
export type SetPasswordBody = Static<typeof SetPasswordBody>;

export const SetupStatus = Type.Object(
  { data: Type.Object({ needed: Type.Boolean({ description: 'True while the store has no organization.' }) }, { additionalProperties: false }) },
  { additionalProperties: false },
);

/** The 409 of a sign-in that matches several organizations: which ones, for the person to choose. */
export const OrgChoiceConflict = Type.Object(
  {
    error: Type.String(),
    code: Type.Literal('CONFLICT'),
    details: Type.Array(Type.Object({
      path: Type.Literal('/organizationId'),
      message: Type.String(),
      organizationId: Type.String(),
      organizationName: Type.String(),
    }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'CONFLICT: the credentials match people in several organizations; send one `organizationId` of `details`.' },
);

export const authErrors = {
  400: { ...ErrorBody, description: 'VALIDATION_ERROR or INVALID_JSON' },
  401: { ...ErrorBody, description: 'UNAUTHORIZED' },
  403: { ...ErrorBody, description: 'FORBIDDEN: `Origin` is not this server, or the CSRF token is missing or wrong' },
  429: { ...ErrorBody, description: 'RATE_LIMITED; see Retry-After' },
  500: { ...ErrorBody, description: 'INTERNAL_ERROR' },
};
