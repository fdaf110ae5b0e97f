import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { signedIn } from '../users/users-routes.ts';
import {
  ContactMethodList, ContactMethodOne, CreateContactMethodBody, MASKED_SECRET, MAX_METHODS, NotificationRulesBody, NotificationRulesResponse,
  LinkBody, LinkResponse, UpdateContactMethodBody, VerifyBody,
} from './contacts-schemas.ts';
import type { ContactsService } from './contacts-service.ts';
import { NotificationOne } from '../notifications/notifications-schemas.ts';

const YOURS = 'Your own, with the session cookie only (an API key: 403).';
const SECRETS = `Secrets (a webhook's \`secret\`, an ntfy \`token\`) are never returned: responses show \`${MASKED_SECRET}\`.`;
const PLAN = 'When you are paged: with no contact method, by email at your account address; with methods but no rules, by every method at once; with rules, by each rule\'s method after its minutes.';

export function contactsRoutes(app: Api, contacts: ContactsService): void {
  // A member's own profile is theirs to change: every role holds users:read (as for PATCH /users/me).
  const own = { scope: 'users:read', tag: 'contact methods' } as const;

  app.get('/users/me/contact-methods', {
    config: { scope: own.scope },
    schema: apiSchema({ ...own, summary: 'List your contact methods', description: `${YOURS} In the order added (at most ${MAX_METHODS}). ${SECRETS}` },
      { response: { 200: ContactMethodList } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.list(me.orgId, me.userId) };
  });

  app.post('/users/me/contact-methods', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Add a contact method',
      description: `${YOURS} A member has at most ${MAX_METHODS} (409 beyond). URLs must be http or https without credentials; a literal private or loopback address is refused (400) unless the operator allows it (OUTBOUND_ALLOW), and every send checks the resolved address again. ${SECRETS} ${PLAN}`,
    }, { body: CreateContactMethodBody, response: { 201: ContactMethodOne, ...conflictResponse } }),
  }, async (req, reply) => {
    const me = signedIn(req);
    return reply.code(201).send({ data: await contacts.create(me.orgId, actorOf(req), me.userId, req.body) });
  });

  app.get('/users/me/contact-methods/:id', {
    config: { scope: own.scope },
    schema: apiSchema({ ...own, summary: 'Get one of your contact methods', description: `${YOURS} ${SECRETS}` }, { params: IdParams, response: { 200: ContactMethodOne } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.get(me.orgId, me.userId, req.params.id) };
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/users/me/contact-methods/:id',
      config: { scope: own.scope },
      schema: apiSchema({
        ...own,
        summary: method === 'PUT' ? 'Change one of your contact methods' : 'Change one of your contact methods (synonym of PUT)',
        description: `${YOURS} Partial: \`label\`, or the whole \`target\` of the method's own type (its type cannot change). Sending \`${MASKED_SECRET}\` as the secret keeps the stored one; leaving it out removes it.`,
      }, { params: IdParams, body: UpdateContactMethodBody, response: { 200: ContactMethodOne } }),
      handler: async (req) => {
        const me = signedIn(req);
        return { data: await contacts.update(me.orgId, actorOf(req), me.userId, req.params.id, req.body) };
      },
    });
  }

  app.post('/users/me/contact-methods/:id/test', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Send a test page to one of your contact methods',
      description: `${YOURS} Sends a clearly marked test page ("[TEST] …", asking for no answer) now, by the method's channel, and returns the delivery as it went: \`sent\`, or \`failed\` with the provider's error in \`lastError\`. One attempt, no retries; it shows in the delivery log as \`source: test\`. 409 for a method not confirmed yet.`,
    }, { params: IdParams, response: { 200: NotificationOne, ...conflictResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.test(me.orgId, actorOf(req), me.userId, req.params.id) };
  });

  app.post('/users/me/contact-methods/link', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Link a chat account as one of your contact methods',
      description: `${YOURS} For a channel whose accounts are linked from the chat itself (Telegram): a one-time code, valid 15 minutes, and where to send it. When the organization's bot receives it from you, your contact method is made (confirmed) and the bot says so.`,
    }, { body: LinkBody, response: { 200: LinkResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.requestLink(me.orgId, actorOf(req), me.userId, req.body.type) };
  });

  app.post('/users/me/contact-methods/:id/send-code', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Send a code to confirm one of your contact methods',
      description: `${YOURS} For a method whose channel pages only confirmed targets (a phone number: SMS, voice): sends a 6-digit code to it now (a text, or a call that reads it), valid 10 minutes, replacing any earlier one; at most 5 an hour per method (429 beyond). Returns the delivery as it went. 409 when the method needs no code or is confirmed already.`,
    }, { params: IdParams, response: { 200: NotificationOne, ...conflictResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.sendCode(me.orgId, actorOf(req), me.userId, req.params.id) };
  });

  app.post('/users/me/contact-methods/:id/verify', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Confirm one of your contact methods with its code',
      description: `${YOURS} The right code confirms the method (\`verified: true\`): it pages from now on. A wrong code is 400 at \`/code\` and counts: after 5 wrong guesses, or 10 minutes, a new code must be sent.`,
    }, { params: IdParams, body: VerifyBody, response: { 200: ContactMethodOne } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await contacts.verify(me.orgId, actorOf(req), me.userId, req.params.id, req.body.code) };
  });

  app.delete('/users/me/contact-methods/:id', {
    config: { scope: own.scope },
    schema: apiSchema({ ...own, summary: 'Delete one of your contact methods', description: `${YOURS} The notification rules naming it are removed with it.` },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    const me = signedIn(req);
    await contacts.remove(me.orgId, actorOf(req), me.userId, req.params.id);
    return reply.code(204).send(null);
  });

  app.get('/users/me/notification-rules', {
    config: { scope: own.scope },
    schema: apiSchema({ ...own, summary: 'Get your notification rules', description: `${YOURS} ${PLAN}` }, { response: { 200: NotificationRulesResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: { rules: await contacts.rules(me.orgId, me.userId) } };
  });

  app.put('/users/me/notification-rules', {
    config: { scope: own.scope },
    schema: apiSchema({
      ...own,
      summary: 'Replace your notification rules',
      description: `${YOURS} The whole ordered list at once, e.g. ntfy at 0 minutes, email after 3. A rule naming a method that is not yours (another member's, or deleted) is 400 naming the rule's path; an empty list goes back to the default. ${PLAN}`,
    }, { body: NotificationRulesBody, response: { 200: NotificationRulesResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: { rules: await contacts.replaceRules(me.orgId, actorOf(req), me.userId, req.body) } };
  });

  // Slack and Teams webhook URLs are credentials of their own: reading another member's needs an admin's scope.
  const admin = { scope: 'users:write', tag: 'contact methods' } as const;
  app.get('/users/:id/contact-methods', {
    config: { scope: admin.scope },
    schema: apiSchema({ ...admin, summary: 'List a member\'s contact methods', description: `Read only: only the member changes their own. ${SECRETS}` },
      { params: IdParams, response: { 200: ContactMethodList } }),
  }, async (req) => ({ data: await contacts.list(principalOf(req).orgId, req.params.id) }));
}
