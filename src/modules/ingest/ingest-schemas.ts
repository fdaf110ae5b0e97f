import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { STATUSES } from '../alerts/alerts-fns.ts';

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
