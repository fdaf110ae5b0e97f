import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { SEVERITIES, STATUSES } from '../alerts/alerts-fns.ts';

export const INGEST_ACTIONS = ['created', 'deduplicated', 'resolved', 'acknowledged', 'suppressed', 'ignored'] as const;
export type IngestAction = (typeof INGEST_ACTIONS)[number];

export const IngestOutcome = Type.Object(
  {
    alertId: Nullable(Type.String()),
    fingerprint: Type.String(),
    status: Nullable(StringEnum(STATUSES)),
    action: StringEnum(INGEST_ACTIONS),
  },
  { additionalProperties: false },
);
export type IngestOutcome = Static<typeof IngestOutcome>;
export const IngestResponse = Type.Object(
  { data: Type.Object({ alerts: Type.Array(IngestOutcome) }, { additionalProperties: false }) },
  { additionalProperties: false },
);

/** An alert as ingest would store it: what the mapping preview shows. */
export const AlertPreview = Type.Object(
  {
    title: Nullable(Type.String()),
    severity: Nullable(StringEnum(SEVERITIES)),
    status: StringEnum(STATUSES),
    source: Nullable(Type.String()),
    description: Nullable(Type.String()),
    fingerprint: Type.String(),
    labels: Type.Record(Type.String(), Type.String()),
    annotations: Type.Record(Type.String(), Type.String()),
    clientId: Nullable(Type.String({ description: 'The client it would belong to.' })),
  },
  { additionalProperties: false },
);
export type AlertPreview = Static<typeof AlertPreview>;
