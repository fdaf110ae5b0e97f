import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SCOPES } from './api-keys-fns.ts';

const ScopeSchema = StringEnum(SCOPES);

const fields = {
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(ScopeSchema),
  expiresAt: Nullable(Timestamp),
  prefix: Type.String({ description: 'First characters of the key, to recognize it; never the whole key.' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
};

export const ApiKey = Type.Object(fields, { additionalProperties: false });
export type ApiKey = Static<typeof ApiKey>;
export const CreatedApiKey = Type.Object(
  { ...fields, key: Type.String({ description: 'The full key. Shown only in this response; only its hash is stored.' }) },
  { additionalProperties: false },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ApiKeyList = listOf(ApiKey);
export const ApiKeyListQuery = Type.Object(PageQuery);
