export type ActorType = 'integration' | 'api_key' | 'user' | 'system';

/** Who did something: shown as `acknowledgedBy`, `resolvedBy` and in audit events. */
export interface Actor {
  type: ActorType;
  id: string | null;
}

export const actorFrom = (type: string | null, id: string | null): Actor | null =>
  type === null ? null : { type: type as ActorType, id };
