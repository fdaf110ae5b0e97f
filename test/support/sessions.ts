import assert from 'node:assert/strict';
import type { Harness, Res } from './harness.ts';

export interface Session {
  /** The `Cookie` header value to send. */
  cookie: string;
  csrf: string;
  userId: string;
  orgId: string;
}

/** The `af_session` cookie a response sets, with its attributes. */
export function sessionCookieOf(r: Res): string {
  const raw = r.headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  const found = all.find((c) => c.startsWith('af_session='));
  assert.ok(found, `no af_session cookie in ${JSON.stringify(raw)}`);
  return found;
}

export function sessionOf(r: Res): Session {
  const cookie = (sessionCookieOf(r).split(';')[0] as string);
  return { cookie, csrf: r.body.data.csrfToken, userId: r.body.data.user.id, orgId: r.body.data.organization.id };
}

/** A person with a password in `orgId`. */
export async function addPerson(h: Harness, orgId: string, email: string, password: string, role: 'owner' | 'admin' | 'member' = 'admin'): Promise<string> {
  return (await h.c.users.add(orgId, { email, name: email.split('@')[0] as string, role, password })).id;
}

export async function signIn(h: Harness, email: string, password: string, extra: { organizationId?: string; ip?: string } = {}): Promise<Session> {
  const { ip, ...body } = extra;
  const r = await h.req('POST', '/api/v1/auth/login', { key: null, body: { email, password, ...body }, ...(ip && { ip }) });
  assert.equal(r.status, 200, r.raw);
  return sessionOf(r);
}

/** A request with the session cookie, and its CSRF token unless `csrf` says otherwise (null: none). */
export function asPerson(h: Harness, s: Session, method: string, url: string, opts: { body?: unknown; csrf?: string | null } = {}): Promise<Res> {
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  const headers: Record<string, string> = { cookie: s.cookie, ...(csrf !== null && { 'x-csrf-token': csrf }) };
  return h.req(method, url, { key: null, headers, ...(opts.body !== undefined && { body: opts.body }) });
}
