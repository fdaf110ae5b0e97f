import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SEVERITIES, STATUSES } from '../alerts/alerts-fns.ts';
import { AlertPreview } from '../ingest/ingest-schemas.ts';
import { MAX_ITEMS } from '../ingest/mapping-fns.ts';
import { PRESET_NAMES } from '../ingest/presets.ts';

/** Where the vendor-compatible endpoints live (see docs/senders.md); also served at the vendors' own paths from the root. */
export const PAGERDUTY_PATH = '/api/inbound/pagerduty/v2/enqueue';
export const OPSGENIE_PREFIX = '/api/inbound/opsgenie';

const Path = Type.String({ minLength: 1, maxLength: 512 });
const Key = Type.String({ minLength: 1, maxLength: 200 });

/** One schema for the mapping: request bodies, responses and the OpenAPI document all use it. */
export const Mapping = Type.Object(
  {
    itemsPath: Type.Optional({ ...Path, description: `The payload holds an array of alerts at this path (at most ${MAX_ITEMS}); each element is one alert.` }),
    fields: Type.Optional(Type.Record(Key, Type.Union([Path, Type.Array(Path, { minItems: 1, maxItems: 10 })]), {
      maxProperties: 100,
      description: 'Target → source path, or a list of paths tried in order. Targets: title, severity, status, source, description, fingerprint, dedup_key, labels, annotations, labels.<key>, annotations.<key>. Paths: dot notation resolved against the element (`a.b.0.c`; a numeric segment indexes an array), `$.` for the payload root. `__proto__`, `constructor` and `prototype` segments are refused. Standard fields present in the element and not mapped pass through.',
    })),
    severityMap: Type.Optional(Type.Record(Key, StringEnum(SEVERITIES), {
      maxProperties: 100,
      description: 'Sender value → severity: exact match, then case-insensitive; a standard value passes through; `*` catches any other value; otherwise 400.',
    })),
    statusMap: Type.Optional(Type.Record(Key, StringEnum(STATUSES), { maxProperties: 100, description: 'Sender value → status, matched like `severityMap`.' })),
    defaults: Type.Optional(Type.Record(Key, Type.String({ maxLength: 4096 }), {
      maxProperties: 100,
      description: 'Values for targets (scalars or labels.<key> / annotations.<key>) that the payload leaves empty.',
    })),
  },
  { additionalProperties: false, description: 'Field mapping (contract §4); null means the preset\'s mapping, or the standard payload for `standard`.' },
);
export type Mapping = Static<typeof Mapping>;

/** Flap detection per integration (docs/paging.md, "Flapping alerts"). */
export const FlapRule = Type.Object(
  {
    threshold: Type.Integer({ minimum: 2, maximum: 100, description: 'Changes (an alert firing anew, or resolving) of one fingerprint within `windowSeconds` that make it flap (default 5).' }),
    windowSeconds: Type.Integer({ minimum: 60, maximum: 86_400, description: 'The window the changes are counted in (default 1800: 30 minutes).' }),
    stableSeconds: Type.Integer({ minimum: 60, maximum: 86_400, description: 'A flapping fingerprint stops flapping after this long without a change (default 1800), with a notice.' }),
  },
  { additionalProperties: false, description: 'When an alert of this integration flaps: while it does, its changes do not page; one notice goes to whoever was paged, another when it is stable again.' },
);
export type FlapRule = Static<typeof FlapRule>;

export const Integration = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    preset: StringEnum(PRESET_NAMES, { description: 'Built-in mapping used while `mapping` is null. See GET /integrations/presets.' }),
    enabled: Type.Boolean(),
    token: Type.String({ description: 'Ingest token: the only credential of the ingest URL. Treat it as a secret. Shown in full only to callers holding `integrations:write`; others see `…` and its last 4 characters.' }),
    ingestUrl: Type.String({ description: 'POST alerts here: `{BASE_URL}/api/inbound/webhook/{token}`. Masked like `token` for callers without `integrations:write`.' }),
    routingKey: Type.String({ description: 'For senders that speak PagerDuty\'s Events API v2: the `routing_key` (32 lowercase hex characters, PagerDuty\'s "Integration Key"). A credential like `token`, masked the same way, rotated with it.' }),
    pagerdutyUrl: Type.String({ description: `Where such a sender posts its events: \`{BASE_URL}${PAGERDUTY_PATH}\` (\`{BASE_URL}/v2/enqueue\` works too, for a sender that lets you change only the host).` }),
    genieKey: Type.String({ description: 'For senders that speak Opsgenie\'s Alert API: the API key they send as `Authorization: GenieKey <key>` (UUID-shaped). A credential like `token`, masked the same way, rotated with it.' }),
    opsgenieApiUrl: Type.String({ description: `Such a sender's API URL, to which it appends \`v2/alerts…\`: \`{BASE_URL}${OPSGENIE_PREFIX}/\` (\`{BASE_URL}/\` works too).` }),
    mapping: Nullable(Mapping),
    clientId: Nullable(Type.String({ description: 'Alerts from this integration belong to this client unless their `labels.client` names another.' })),
    flapping: FlapRule,
    lastAlertAt: Nullable({ ...Timestamp, description: 'When a payload was last accepted.' }),
    acceptedCount: Type.Integer({ description: 'Payloads accepted (2xx).' }),
    rejectedCount: Type.Integer({ description: 'Payloads refused (400, 413, 415, 429, or sent while disabled); see /rejections.' }),
    lastRejectedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Integration = Static<typeof Integration>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  preset: StringEnum(PRESET_NAMES),
  enabled: Type.Boolean(),
  mapping: Nullable(Mapping),
  clientId: Nullable(Type.String({ maxLength: 200 })),
  flapping: FlapRule,
};
export const CreateIntegrationBody = Type.Object(
  {
    name: editable.name,
    preset: Type.Optional({ ...editable.preset, default: 'standard' }),
    enabled: Type.Optional({ ...editable.enabled, default: true }),
    mapping: Type.Optional(editable.mapping),
    clientId: Type.Optional(editable.clientId),
    flapping: Type.Optional(editable.flapping),
  },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;
export const UpdateIntegrationBody = UpdateBody(editable);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const IntegrationList = listOf(Integration);
export const IntegrationListQuery = Type.Object({
  ...PageQuery,
  clientId: Type.Optional(Type.String({ maxLength: 200, description: 'Only the integrations of this client.' })),
});

export const PreviewBody = Type.Object(
  {
    payload: Type.Unknown({ description: 'A sample of what the sender posts.' }),
    mapping: Type.Optional(Nullable({ ...Mapping, description: 'An unsaved mapping to try instead of the integration\'s; null tries the standard payload.' })),
  },
  { additionalProperties: false, required: ['payload'] },
);
export type PreviewBody = Static<typeof PreviewBody>;
const Detail = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false });
export const PreviewResponse = Type.Object(
  {
    data: Type.Object(
      {
        ok: Type.Boolean({ description: 'Whether ingest would accept this payload.' }),
        alerts: Type.Array(AlertPreview, { description: 'The normalized alerts, when ok.' }),
        errors: Type.Array(Detail, { description: 'Why ingest would answer 400, when not ok.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const Rejection = Type.Object(
  {
    id: Type.String(),
    status: Type.Integer({ description: 'HTTP status the sender got.' }),
    code: Type.String(),
    error: Type.String(),
    details: Nullable(Type.Array(Detail)),
    payload: Nullable(Type.String({ description: 'The start of the body as received (up to 16 KiB), when it was read.' })),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Rejection = Static<typeof Rejection>;
export const RejectionList = listOf(Rejection);
export const RejectionListQuery = Type.Object(PageQuery);

export const Preset = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    setup: Type.String(),
    mapping: Nullable(Mapping),
    sample: Type.Record(Type.String(), Type.Unknown(), { description: 'A realistic payload of this sender.' }),
  },
  { additionalProperties: false },
);
export const PresetList = Type.Object({ data: Type.Array(Preset) }, { additionalProperties: false });
