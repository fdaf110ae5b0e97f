import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Limits } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import type { AnswersService } from './answers-service.ts';
import type { ChannelDeps } from './channels/channel.ts';
import type { InboundContext, InboundHook, InboundReply, InboundRequest } from './channels/inbound.ts';
import { CHANNEL_TYPES, CHANNELS, type ChannelType } from './channels/registry.ts';
import { wellFormed } from '../../http/json-body.ts';
import type { SettingsService } from './settings-service.ts';
import type { ContactsService } from '../contacts/contacts-service.ts';

/** What providers send is small: a text message's fields, a button press. */
const INBOUND_BODY_LIMIT = 64 * 1024;

const CONTENT_TYPES: Record<InboundReply['type'], string> = {
  xml: 'text/xml; charset=utf-8', json: 'application/json; charset=utf-8', text: 'text/plain; charset=utf-8',
};

/**
 * The hooks channels declare (an SMS reply, a key pressed on a call, a chat button, a provider's status
 * callback), mounted at `/api/inbound/channels/<type>/<hook>` (or `/<type>/<orgId>/<hook>` for a hook per
 * organization). Outside /api/v1 and the OpenAPI document: each provider signs its requests, and each hook
 * verifies that signature before anything else. Refused requests count against the address like failed
 * credentials (429 once past the limit).
 */
export async function inboundRoutes(app: Api, deps: {
  answers: AnswersService;
  settings: Pick<SettingsService, 'get'>;
  members: Pick<ContactsService, 'memberByEmail' | 'memberOf' | 'linkFromChannel'>;
  channels: ChannelDeps;
  baseUrl: string;
  limits: Limits;
  now: () => number;
}): Promise<void> {
  const contextFor = (type: ChannelType): InboundContext => ({
    deps: deps.channels,
    now: deps.now,
    // A hook finds only its own channel's pages.
    page: async (id) => {
      const p = await deps.answers.page(id);
      return p && p.channel === type ? p : null;
    },
    pageByReplyCode: async (address, code) => {
      const p = await deps.answers.pageByReplyCode(address, code);
      return p && p.channel === type ? p : null;
    },
    answer: (a) => deps.answers.answer(a),
    providerStatus: (page, status, failure) => deps.answers.providerStatus(page, status, failure),
    settings: (orgId) => deps.settings.get(orgId, type),
    memberByEmail: (orgId, email) => deps.members.memberByEmail(orgId, email),
    member: (orgId, externalId) => deps.members.memberOf(orgId, type, externalId),
    link: (orgId, code, target, externalId) => deps.members.linkFromChannel(orgId, type, code, target, externalId),
  });

  async function run(type: ChannelType, hook: InboundHook, req: FastifyRequest, reply: FastifyReply, orgId: string | null) {
    const limited = await deps.limits.authFailures.peek(req.ip);
    if (!limited.allowed) return reply.code(429).header('Retry-After', limited.resetSeconds).type(CONTENT_TYPES.text).send('Too many refused requests');
    const raw = typeof req.body === 'string' ? req.body : '';
    // The raw text stays as sent (signatures are over it); what is read out of it is settled as all request
    // text is (NUL and lone surrogates: see wellFormed), so whatever a hook stores, both stores can keep.
    const input: InboundRequest = {
      url: `${deps.baseUrl}${req.url}`,
      query: Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string')),
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v[0] : v])),
      rawBody: raw,
      form: hook.body === 'form' ? wellFormed([...new URLSearchParams(raw)]) : [],
      json: hook.body === 'json' ? wellFormed(parseJson(raw)) : undefined,
      orgId,
    };
    const out = await hook.handle(contextFor(type), input);
    if (out.status === 401 || out.status === 403) await deps.limits.authFailures.consume(req.ip);
    return reply.code(out.status).header('Cache-Control', 'no-store').type(CONTENT_TYPES[out.type]).send(out.body);
  }

  await app.register(async (scope) => {
    // Providers post forms (Twilio, Slack) or JSON (Telegram): each hook reads the raw text, which some sign.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: INBOUND_BODY_LIMIT }, (_req, body, done) => done(null, body));
    for (const type of CHANNEL_TYPES) {
      const hooks = (CHANNELS[type] as { inbound?: Readonly<Record<string, InboundHook>> }).inbound ?? {};
      for (const [name, hook] of Object.entries(hooks)) {
        if (hook.perOrg) {
          scope.post(`/api/inbound/channels/${type}/:orgId/${name}`, { schema: { hide: true, params: Type.Object({ orgId: Type.String({ maxLength: 100 }) }) } },
            (req, reply) => run(type, hook, req, reply, (req.params as { orgId: string }).orgId));
        } else {
          scope.post(`/api/inbound/channels/${type}/${name}`, { schema: { hide: true } }, (req, reply) => run(type, hook, req, reply, null));
        }
      }
    }
  });
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
