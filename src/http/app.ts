import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { Container } from '../container.ts';
import { AppError } from '../lib/errors.ts';
import { alertsRoutes } from '../modules/alerts/alerts-routes.ts';
import { apiKeysRoutes } from '../modules/api-keys/api-keys-routes.ts';
import { auditRoutes } from '../modules/audit/audit-routes.ts';
import { authRoutes } from '../modules/auth/auth-routes.ts';
import { clientsRoutes } from '../modules/clients/clients-routes.ts';
import { contactsRoutes } from '../modules/contacts/contacts-routes.ts';
import { incidentsRoutes } from '../modules/incidents/incidents-routes.ts';
import { analyticsRoutes } from '../modules/analytics/analytics-routes.ts';
import { orgsRoutes } from '../modules/orgs/orgs-routes.ts';
import { reportsRoutes } from '../modules/reports/reports-routes.ts';
import { escalationsRoutes } from '../modules/escalations/escalations-routes.ts';
import { pageLinkRoutes } from '../modules/escalations/page-links-routes.ts';
import { heartbeatPingRoutes, heartbeatsRoutes } from '../modules/heartbeats/heartbeats-routes.ts';
import { ingestRoutes, isIngestUrl, refuseIngestToken } from '../modules/ingest/ingest-routes.ts';
import { opsgenieRoutes } from '../modules/inbound/opsgenie-routes.ts';
import { pagerdutyRoutes } from '../modules/inbound/pagerduty-routes.ts';
import { integrationsRoutes } from '../modules/integrations/integrations-routes.ts';
import { liveRoutes } from '../modules/live/live-routes.ts';
import { notificationsRoutes } from '../modules/notifications/notifications-routes.ts';
import { inboundRoutes } from '../modules/notifications/inbound-routes.ts';
import { settingsRoutes } from '../modules/notifications/settings-routes.ts';
import { schedulesRoutes } from '../modules/schedules/schedules-routes.ts';
import { calendarFeedRoutes, calendarFeedsRoutes } from '../modules/schedules/calendar-feeds-routes.ts';
import { suppressionRoutes } from '../modules/suppression/suppression-routes.ts';
import { usersRoutes } from '../modules/users/users-routes.ts';
import { workflowsRoutes } from '../modules/workflows/workflows-routes.ts';
import type { Role } from '../server.ts';
import { restAuth } from './auth.ts';
import { boundBodiesInFlight } from './body-budget.ts';
import { dashboardStylesheets, registerDashboard } from './dashboard.ts';
import { clientErrorHandler, errorBody, redactUrl, reportedError, toAppError } from './errors.ts';
import { observability } from './observability.ts';
import { opsRoutes } from './ops-routes.ts';
import { documentErrors } from './schemas.ts';
import { BODY_LIMIT, parseJsonBody, wellFormed } from './json-body.ts';
import { serializerCompiler } from './serializers.ts';
import { validatorCompiler } from './validation.ts';

/** A hop count as Fastify takes it: believe that many proxies nearest to us. */
const trustHops = (hops: number) => (_address: string, hop: number): boolean => hop < hops;

export const API_VERSION = '0.1.0';


export async function buildApp(c: Container, log: Logger, opts: { role?: Role } = {}) {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: typeof c.config.trustProxy === 'number' ? trustHops(c.config.trustProxy) : c.config.trustProxy,
    forceCloseConnections: 'idle',
    // A backstop for requests whose body is never taken on (refused before it is read, 401 or 429): Node
    // answers 408 and closes a request still arriving this long after it began (body-budget.ts drops a body
    // taken on sooner, after BODY_TIMEOUT_SECONDS).
    requestTimeout: (c.config.bodyTimeoutSeconds + 30) * 1000,
    // A request that reached us before shutdown is served (its transaction commits before the store closes),
    // not answered with Fastify's own 503 outside our envelope.
    return503OnClosing: false,
    // Errors the router raises before any route runs get the same envelope as every other error.
    frameworkErrors: (err, req, reply) => {
      const send = (e: AppError) => {
        if (e.retryAfter !== undefined) reply.header('Retry-After', e.retryAfter);
        return (reply as FastifyReply).code(e.status).send(errorBody(e));
      };
      // An ingest token too long for the router is still a wrong credential, counted like any other.
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH' && req.method === 'POST' && isIngestUrl(req.url)) {
        refuseIngestToken(c.limits, req.ip).catch((e: unknown) => send(toAppError(e)));
        return;
      }
      return send(toAppError(err));
    },
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // JSON only: any other content type is 415 (Fastify's text/plain parser would otherwise accept it).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      // Kept for the integration's rejections log: any bytes at all, so settled like every request text.
      req.invalidBody = wellFormed((body as string).slice(0, 16 * 1024));
      done(err as Error, undefined);
    }
  });

  boundBodiesInFlight(app, { maxBytes: c.config.maxBodyBytesInFlight, bodyLimit: BODY_LIMIT, timeoutMs: c.config.bodyTimeoutSeconds * 1000 });

  app.setErrorHandler((err, req, reply) => {
    const e = reportedError(err, req);
    if (e.retryAfter !== undefined) reply.header('Retry-After', e.retryAfter);
    return reply.code(e.status).send(errorBody(e));
  });
  // `%00` in a path or query decodes to U+0000, and an escaped surrogate half (`%ED%A0%80`) to a lone
  // surrogate, neither of which PostgreSQL can take as a parameter (see wellFormed).
  app.addHook('onRequest', async (req) => {
    if (!/%00|%ED%[AB]/i.test(req.url)) return;
    req.params = wellFormed(req.params);
    req.query = wellFormed(req.query);
  });
  // A worker serves no dashboard: the API its pages call lives in another process.
  const dashboardPage = opts.role === 'worker' ? () => false : await registerDashboard(app, c.config.dashboardDir);
  app.setNotFoundHandler((req, reply) => {
    if (dashboardPage(req, reply)) return reply;
    return reply.code(404).send(errorBody(new AppError('NOT_FOUND', `No route ${req.method} ${redactUrl(req.url.split('?')[0] as string)}`)));
  });

  await app.register(cookie);
  await app.register(swagger, {
    transform: ({ schema, url }) => ({ schema: documentErrors(schema as Record<string, unknown>) as typeof schema, url }),
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'AlertFlow API',
        version: API_VERSION,
        description: 'REST API of AlertFlow. Every operation needs `Authorization: Bearer <API key>` with the scope named in its `x-required-scopes`, or (the dashboard) the `af_session` cookie of `POST /auth/login`, whose role grants the scopes (owner/admin: all, including `users:write`; member: every `:read` scope, `alerts:write`, `incidents:write`); with the cookie, every method but GET/HEAD/OPTIONS also needs the header `X-CSRF-Token` (the session\'s `csrfToken`). A bearer header, when sent, is used alone. Lists are newest first and cursor-paginated (`limit` 1–100, default 25; `meta.total` on the first page only). Errors are `{error, code, details}`. Limits: 300 requests/min per organization, 10 API key creations per UTC day. The ingest endpoint `POST /api/inbound/webhook/{token}` is outside this API.',
      },
      servers: [{ url: `${c.config.baseUrl}/api/v1` }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (`af_live_…` / `af_test_…`)' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'af_session', description: 'Dashboard session (POST /auth/login); writes also need `X-CSRF-Token`.' },
        },
      },
    },
  });

  observability(app, c.metrics);
  opsRoutes(app, c);
  // A worker answers only what its supervisor and Prometheus ask; the API is another process's job.
  if (opts.role === 'worker') return app;

  // Open event streams are not idle connections: end them, or closing would wait for them forever.
  app.addHook('preClose', async () => c.live.closeAll());

  ingestRoutes(app, c);
  pagerdutyRoutes(app, c);
  opsgenieRoutes(app, c);
  await heartbeatPingRoutes(app, c);
  calendarFeedRoutes(app, { feeds: c.calendarFeeds, limits: c.limits });
  await pageLinkRoutes(app, c.pageLinks, { stylesheets: dashboardStylesheets(c.config.dashboardDir) });
  await inboundRoutes(app, { answers: c.answers, settings: c.settings, members: c.contacts, channels: c.channelDeps, baseUrl: c.config.baseUrl, limits: c.limits, now: () => c.clock.now() });

  const auth = restAuth(c);
  await app.register(async (api) => {
    api.addHook('onRequest', auth.onRequest);
    api.addHook('preParsing', auth.preParsing);
    api.addHook('onResponse', auth.onResponse);
    api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    authRoutes(api, { auth: c.auth, baseUrl: c.config.baseUrl, sessionHours: c.config.sessions.absoluteHours });
    alertsRoutes(api, c.alerts);
    notificationsRoutes(api, c.notifications, {
      savedTargets: async (orgId, channel) => [...await c.escalations.channelTargets(orgId, channel), ...await c.workflows.channelTargets(orgId, channel)],
      providers: c.config.providers,
      baseUrl: c.config.baseUrl,
    });
    settingsRoutes(api, c.settings);
    integrationsRoutes(api, c);
    clientsRoutes(api, c.clients);
    suppressionRoutes(api, c.suppression);
    schedulesRoutes(api, c.schedules);
    calendarFeedsRoutes(api, c.calendarFeeds);
    apiKeysRoutes(api, c);
    usersRoutes(api, c);
    auditRoutes(api, c.audit);
    workflowsRoutes(api, c.workflows);
    incidentsRoutes(api, c.incidents, c.escalations);
    heartbeatsRoutes(api, c.heartbeats);
    contactsRoutes(api, c.contacts);
    liveRoutes(api, { live: c.live, apiKeys: c.apiKeys, auth: c.auth, timing: c.liveTiming });
    escalationsRoutes(api, c.escalations);
    analyticsRoutes(api, c.analytics, c.clientBoard);
    orgsRoutes(api, c.orgs);
    reportsRoutes(api, c.reports);
  }, { prefix: '/api/v1' });

  return app;
}
export type App = Awaited<ReturnType<typeof buildApp>>;
