import type { ApiKeysService } from '../api-keys/api-keys-service.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { principalOf, recheckOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { LIVE_EVENT_TYPES, parseLastEventId } from './live-fns.ts';
import { EventsQuery, LiveEventData } from './live-schemas.ts';
import { MAX_REPLAY, type LiveService } from './live-service.ts';
import { openStream, type StreamTiming } from './live-stream.ts';

const ABOUT = `A server-sent event stream (\`text/event-stream\`) of the organization's alert and incident changes, for pages that stay open (the dashboard uses it with the session cookie; \`EventSource\` cannot send headers).

Events: ${LIVE_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}, each with an \`id:\` (a sequence number increasing across the service) and \`data:\` one JSON object \`{id, status, severity, title}\` (the schema of the 200 response; \`id\` is the alert's or incident's): the change, not the whole record, so refetch what you show. \`alert.updated\` covers acknowledgement, another occurrence (deduplicated) and joining an incident.

Resume: send the last id you received as \`Last-Event-ID\` (browsers do on reconnect) or \`?lastEventId=\`: the events you missed come first, none twice. When they cannot be replayed (older than one hour, or over ${MAX_REPLAY} of them) the first event is \`reset\` (data \`{}\`): refetch everything, then carry on. A comment line every 15 s keeps the connection open; \`retry:\` suggests 2 s.

The stream ends when the key is revoked or expires, or the session ends or its member is removed (checked every 2 s), when the server shuts down, or when the client reads too slowly (over 1 MiB waiting). At most 50 streams per organization are open on one server: beyond that 429.`;

export function liveRoutes(app: Api, deps: { live: LiveService; apiKeys: ApiKeysService; auth: AuthService; timing: StreamTiming }): void {
  app.get('/events', {
    config: { scope: 'alerts:read' },
    schema: apiSchema({ scope: 'alerts:read', tag: 'alerts', summary: 'Stream alert and incident changes (server-sent events)', description: ABOUT }, {
      querystring: EventsQuery,
      response: { 200: { description: 'The event stream; each event\'s `data` is one JSON object of this schema.', content: { 'text/event-stream': { schema: LiveEventData } } } as never },
    }),
  }, async (req, reply) => {
    const header = req.headers['last-event-id'];
    const resumeFrom = req.query.lastEventId ?? (typeof header === 'string' ? header : undefined);
    const after = resumeFrom === undefined ? null : (parseLastEventId(resumeFrom) ?? -1);
    await openStream(req, reply, { live: deps.live, orgId: principalOf(req).orgId, after, recheck: recheckOf(req, deps), timing: deps.timing });
  });
}
