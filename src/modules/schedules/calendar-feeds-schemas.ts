import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.ts';

export const FeedStatus = Type.Object({
  data: Type.Object({
    active: Type.Boolean({ description: 'Whether a feed URL exists now (its token is never shown again).' }),
    createdAt: Nullable(Timestamp),
    lastUsedAt: Nullable({ ...Timestamp, description: 'When a calendar app last fetched it (to the minute).' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

export const IssuedFeed = Type.Object({
  data: Type.Object({
    url: Type.String({ description: 'The feed: `{BASE_URL}/api/calendar/<token>.ics`, shown this once (only a hash of the token is kept). Paste it into a calendar app\'s "subscribe by URL"; no header is needed.' }),
    webcalUrl: Type.String({ description: 'The same with the `webcal://` scheme, which many calendar apps open directly.' }),
    createdAt: Timestamp,
  }, { additionalProperties: false }),
}, { additionalProperties: false });
export type IssuedFeed = Static<typeof IssuedFeed>['data'];

const Person = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }, { additionalProperties: false });

export const MyOnCall = Type.Object({
  data: Type.Object({
    shifts: Type.Array(Type.Object({
      scheduleId: Type.String(),
      scheduleName: Type.String(),
      timezone: Type.String({ description: 'The schedule\'s IANA time zone.' }),
      startsAt: Timestamp,
      endsAt: Timestamp,
      current: Type.Boolean({ description: 'Under way now.' }),
      next: Type.Object({
        user: Nullable(Person),
        startsAt: Timestamp,
      }, { additionalProperties: false, description: 'Who is on call when this shift ends: `user` null means nobody.' }),
    }, { additionalProperties: false }), { description: 'The member\'s shifts under way now and in the next 30 days, earliest first (at most 20).' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
export type MyOnCall = Static<typeof MyOnCall>['data'];
