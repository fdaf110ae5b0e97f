import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { checkCsrf, checkOrigin } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import { AppError } from '../../lib/errors.ts';
import { DEVICE_COOKIE, DEVICE_COOKIE_DAYS, DEVICE_COOKIE_PATH, SESSION_COOKIE } from './auth-fns.ts';
import { authErrors, LoginBody, OrgChoiceConflict, SessionResponse, SetPasswordBody, SetupBody, SetupStatus } from './auth-schemas.ts';
import type { AuthService, SignedIn } from './auth-service.ts';

const COOKIE_DOC = 'Sets the `af_session` cookie (httpOnly, SameSite=Lax, Path=/, Secure when BASE_URL is https); a new session id at every sign-in. Also sets `af_device` (httpOnly, Path=/api/v1/auth, a year), a signed device cookie: failed sign-ins from other devices never lock out a browser that holds it.';

/**
 * Public operations: documented without security and with an empty `x-required-scopes` (every operation names
 * its scopes, these none); they never take an API key.
 */
const doc = (summary: string, description: string) => ({
  summary, description: `${description}\n\nPublic: needs no API key and no scope.`, tags: ['auth'], security: [], 'x-required-scopes': [] as string[],
});

export function authRoutes(app: Api, deps: { auth: AuthService; baseUrl: string; sessionHours: number }): void {
  const { auth, baseUrl, sessionHours } = deps;
  const cookie = { httpOnly: true, sameSite: 'lax', path: '/', secure: new URL(baseUrl).protocol === 'https:' } as const;
  const signedIn = (reply: FastifyReply, s: SignedIn, status: number) =>
    reply.setCookie(SESSION_COOKIE, s.sessionId, { ...cookie, maxAge: sessionHours * 3600 })
      .setCookie(DEVICE_COOKIE, s.device, { ...cookie, path: DEVICE_COOKIE_PATH, maxAge: DEVICE_COOKIE_DAYS * 86_400 })
      .code(status).send({ data: s.view });

  app.get('/auth/session', {
    schema: {
      ...doc('The signed-in session', 'The person, organization, scopes and CSRF token of the `af_session` cookie; 401 without a valid session (expired, signed out, user removed).'),
      response: { 200: SessionResponse, 401: authErrors[401], 500: authErrors[500] },
    },
  }, async (req) => {
    const session = await auth.authenticate(req.cookies[SESSION_COOKIE]);
    if (!session) throw new AppError('UNAUTHORIZED', 'Not signed in');
    return { data: session.view };
  });

  app.post('/auth/login', {
    schema: {
      ...doc('Sign in with email and password', `${COOKIE_DOC} Wrong email or password is 401 either way. When the credentials match people in several organizations and no \`organizationId\` is sent: 409 listing them in \`details\`. Each attempt is counted before the password is checked (given back when it is right): from a browser holding this account's \`af_device\` cookie, per device; otherwise per address, per account and address, and per account (429 + Retry-After, right password or not). A request whose \`Origin\` is not this server is 403.`),
      body: LoginBody,
      response: { 200: SessionResponse, ...authErrors, 409: OrgChoiceConflict },
    },
  }, async (req, reply) => {
    checkOrigin(req, baseUrl);
    return signedIn(reply, await auth.signIn(req.body, req.ip, req.cookies[DEVICE_COOKIE]), 200);
  });

  app.post('/auth/logout', {
    schema: {
      ...doc('Sign out', 'Deletes the session (every instance refuses it at once) and clears the cookie. Needs `X-CSRF-Token` while the session is valid; without a valid session it only clears the cookie.'),
      response: { 204: Type.Null({ description: 'Signed out' }), 403: authErrors[403], 500: authErrors[500] },
    },
  }, async (req, reply) => {
    const session = await auth.authenticate(req.cookies[SESSION_COOKIE]);
    if (session) {
      checkCsrf(req, session.csrfToken);
      await auth.signOut(session, req.ip);
    }
    return reply.clearCookie(SESSION_COOKIE, cookie).code(204).send(null);
  });

  app.post('/auth/set-password', {
    schema: {
      ...doc('Set a password with a one-time link', `With the \`token\` of the link made when an admin added the member (or made a new link): sets their password, ends their other sessions and signs in. ${COOKIE_DOC} A link works once and for 72 hours; a used, expired or wrong token is 404 and says which. Wrong tokens count as failed sign-ins of the address (429). A request whose \`Origin\` is not this server is 403.`),
      body: SetPasswordBody,
      response: { 200: SessionResponse, ...authErrors, 404: { ...authErrors[401], description: 'NOT_FOUND: the link is used, expired or not valid (the message says which)' } },
    },
  }, async (req, reply) => {
    checkOrigin(req, baseUrl);
    return signedIn(reply, await auth.setPassword(req.body, req.ip), 200);
  });

  app.get('/auth/setup', {
    schema: {
      ...doc('Whether first-run setup is needed', 'True while the store has no organization: the server then logs a one-time setup link at start.'),
      response: { 200: SetupStatus, 500: authErrors[500] },
    },
  }, async () => ({ data: { needed: await auth.setupNeeded() } }));

  app.post('/auth/setup', {
    schema: {
      ...doc('Create the first organization and its owner', `With the token of the setup link logged at start, while no organization exists: creates the organization and its owner (role owner) and signs in. ${COOKIE_DOC} The link works once; afterwards (or with a wrong token) 404.`),
      body: SetupBody,
      response: { 201: SessionResponse, ...authErrors, 404: { ...authErrors[401], description: 'NOT_FOUND: wrong or used token, or an organization exists' } },
    },
  }, async (req, reply) => {
    checkOrigin(req, baseUrl);
    return signedIn(reply, await auth.setup(req.body, req.ip), 201);
  });
}
