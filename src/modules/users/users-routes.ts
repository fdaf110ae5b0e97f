import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AppError } from '../../lib/errors.ts';
import { hashToken, SESSION_COOKIE } from '../auth/auth-fns.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { ChangePasswordBody, CreatedUser, CreateUserBody, UpdateMeBody, UpdateUserBody, UserList, UserListQuery, UserResponse } from './users-schemas.ts';
import type { UsersService } from './users-service.ts';

const OWNER_RULE = 'A caller acts only on members whose role holds no scope it lacks itself, and grants only such a role (403: an API key holding `users:write` alone cannot add an admin, issue an admin\'s link or demote one). Only an owner can make, unmake or remove an owner (an API key counts as an admin here: 403); an organization always keeps at least one owner (409).';

/** The member behind the session cookie; profile operations have no meaning for an API key. */
export function signedIn(req: FastifyRequest): { orgId: string; userId: string; idHash: string } {
  const p = principalOf(req);
  const cookie = req.cookies[SESSION_COOKIE];
  if (p.actor.type !== 'user' || p.actor.id === null || p.keyId !== null || cookie === undefined) {
    throw new AppError('FORBIDDEN', 'Only a signed-in member has a profile; an API key cannot use this operation');
  }
  return { orgId: p.orgId, userId: p.actor.id, idHash: hashToken(cookie) };
}

export function usersRoutes(app: Api, deps: { users: UsersService; auth: AuthService }): void {
  const { users, auth } = deps;
  const read = { scope: 'users:read', tag: 'users' } as const;
  const write = { scope: 'users:write', tag: 'users' } as const;

  app.get('/users', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List organization members' }, { querystring: UserListQuery, response: { 200: UserList } }),
  }, (req) => users.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/users', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Add a member',
      description: `Adds a member without a password and returns a one-time link (\`setPasswordLink\`) for them to set one: hand it over; it is also emailed when SMTP_URL is set (\`emailed\`). The link works once, for 72 hours. An email already in the organization is 409. ${OWNER_RULE}`,
    }, { body: CreateUserBody, response: { 201: CreatedUser, ...conflictResponse } }),
  }, async (req, reply) => reply.code(201).send({ data: await users.create(principalOf(req).orgId, actorOf(req), req.body, principalOf(req)) }));

  app.get('/users/me', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'You, the signed-in member', description: 'With the session cookie only (an API key: 403).' },
      { response: { 200: UserResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await users.get(me.orgId, me.userId) };
  });

  app.patch('/users/me', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Change your own name or time zone', description: 'With the session cookie only (an API key: 403). Your time zone decides which pages analytics counts as nights and weekends; null: the organization\'s.' },
      { body: UpdateMeBody, response: { 200: UserResponse } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await users.update(me.orgId, actorOf(req), me.userId, req.body, principalOf(req)) };
  });

  app.post('/users/me/password', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Change your own password',
      description: 'With the session cookie only (an API key: 403). A wrong `currentPassword` is 400 and counts as a failed sign-in (429 once too many). Your other sessions end; this one stays.',
    }, { body: ChangePasswordBody, response: { 204: Type.Null({ description: 'Changed' }) } }),
  }, async (req, reply) => {
    await auth.changePassword(signedIn(req), req.body, req.ip);
    return reply.code(204).send(null);
  });

  app.patch('/users/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Change a member\'s name or role', description: `A role change applies to the member's sessions at their next request. ${OWNER_RULE}` },
      { params: IdParams, body: UpdateUserBody, response: { 200: UserResponse, ...conflictResponse } }),
  }, async (req) => ({ data: await users.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body, principalOf(req)) }));

  app.delete('/users/:id', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Remove a member',
      description: `Their sessions end at once (on every instance). Incidents assigned to them become unassigned (a timeline entry says why); they leave every schedule layer (the others keep rotating; a layer left empty is dropped) and their overrides are dropped; their contact methods and notification rules are deleted. Audit events keep their id. ${OWNER_RULE}`,
    }, { params: IdParams, response: { 204: Type.Null({ description: 'Removed' }), ...conflictResponse } }),
  }, async (req, reply) => {
    await users.remove(principalOf(req).orgId, actorOf(req), req.params.id, principalOf(req));
    return reply.code(204).send(null);
  });

  app.post('/users/:id/password-link', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Make a new set-password link for a member',
      description: 'For a lost or expired link, or a forgotten password: a new one-time link (72 hours), emailed when SMTP_URL is set. Setting a password with it ends the member\'s sessions. The link signs in with the member\'s role, so a caller lacking any scope of that role gets 403; for an owner, only an owner (403).',
    }, { params: IdParams, response: { 201: CreatedUser } }),
  }, async (req, reply) => reply.code(201).send({ data: await users.issueLink(principalOf(req).orgId, actorOf(req), req.params.id, principalOf(req)) }));
}
