import { Type } from 'typebox';

/** The `data` of every `alert.*` / `incident.*` event: enough to decide what to refetch or announce. */
export const LiveEventData = Type.Object({
  id: Type.String({ description: 'The alert or incident id.' }),
  status: Type.String({ description: 'Its status after the change.' }),
  severity: Type.String(),
  title: Type.String({ description: 'As the sender wrote it: render as text.' }),
}, { additionalProperties: false });

export const EventsQuery = Type.Object({
  lastEventId: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'For clients that cannot send the `Last-Event-ID` header: resume after this event id.' })),
}, { additionalProperties: false });
