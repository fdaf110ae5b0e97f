import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

/** Field mappings and presets other than `standard` arrive with the integrations issue; the column is ready. */
export const PRESETS = ['standard'] as const;

export const Integration = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    preset: StringEnum(PRESETS),
    enabled: Type.Boolean(),
    token: Type.String({ description: 'Ingest token: the only credential of the ingest URL. Treat it as a secret.' }),
    ingestUrl: Type.String({ description: 'POST alerts here: `{BASE_URL}/api/inbound/webhook/{token}`.' }),
    mapping: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Field mapping; null means the standard payload.' })),
    clientId: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Integration = Static<typeof Integration>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  preset: StringEnum(PRESETS, { default: 'standard' }),
  enabled: Type.Boolean({ default: true }),
};
export const CreateIntegrationBody = Type.Object(
  { name: editable.name, preset: Type.Optional(editable.preset), enabled: Type.Optional(editable.enabled) },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;
export const UpdateIntegrationBody = Type.Object(
  // No defaults here: the validator would fill them in, so `{}` would pass and a rename would re-enable a disabled integration.
  { name: Type.Optional(editable.name), preset: Type.Optional(StringEnum(PRESETS)), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const IntegrationList = listOf(Integration);
export const IntegrationListQuery = Type.Object(PageQuery);
