import { Type, type Static } from 'typebox';

/** No quote or backslash: a key is put in a JSON path when incidents are grouped by it (analytics-repo.ts). */
const LABEL_KEY = '^[^\\s"\\\\]{1,100}$';

export const OrgSettings = Type.Object({
  id: Type.String(),
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone in which analytics counts days, weeks and months and client reports their months (default UTC).' }),
  analyticsLabels: Type.Array(Type.String(), { description: 'The label keys analytics can group by (default `["service"]`).' }),
}, { additionalProperties: false });
export type OrgSettings = Static<typeof OrgSettings>;

export const UpdateOrgBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone such as Europe/Berlin. Days already counted keep the zone they were counted in.' })),
  analyticsLabels: Type.Optional(Type.Array(Type.String({ pattern: LABEL_KEY }), {
    maxItems: 5, uniqueItems: true,
    description: 'At most 5 label keys to roll up for analytics, counted from when they are added. Keys of many values (host, instance) make many rows.',
  })),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateOrgBody = Static<typeof UpdateOrgBody>;

export const OrgSettingsResponse = Type.Object({ data: OrgSettings }, { additionalProperties: false });
