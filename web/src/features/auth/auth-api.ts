import { ApiError, setCsrfToken } from '../../api/client';

// The auth routes are typed by hand until the served OpenAPI document (and so schema.d.ts) lists them.
export interface SessionView {
  user: { id: string; email: string; name: string | null; role: 'owner' | 'admin' | 'member' };
  organization: { id: string; name: string };
  scopes: string[];
  csrfToken: string;
  expiresAt: string;
}

async function call<T>(method: string, path: string, body?: unknown, csrf?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(`/api/v1/auth/${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (!res.ok) throw new ApiError(res.status, parsed, res.headers.get('Retry-After'));
  return parsed as T;
}

/** The current session, or null when signed out (the csrf token is kept in memory for later writes). */
export async function fetchSession(): Promise<SessionView | null> {
  try {
    const r = await call<{ data: SessionView }>('GET', 'session');
    setCsrfToken(r.data.csrfToken);
    return r.data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw err;
  }
}

export interface LoginInput {
  email: string;
  password: string;
  organizationId?: string;
}

export async function login(input: LoginInput): Promise<SessionView> {
  const r = await call<{ data: SessionView }>('POST', 'login', input);
  setCsrfToken(r.data.csrfToken);
  return r.data;
}

export async function logout(csrf: string): Promise<void> {
  await call<null>('POST', 'logout', undefined, csrf);
  setCsrfToken(null);
}

export async function setupNeeded(): Promise<boolean> {
  const r = await call<{ data: { needed: boolean } }>('GET', 'setup');
  return r.data.needed;
}

export interface SetupInput {
  token: string;
  organizationName: string;
  name: string;
  email: string;
  password: string;
}

export async function setup(input: SetupInput): Promise<SessionView> {
  const r = await call<{ data: SessionView }>('POST', 'setup', input);
  setCsrfToken(r.data.csrfToken);
  return r.data;
}

/** The organizations a 409 at sign-in offers to choose from. */
export function orgChoices(err: ApiError): Array<{ organizationId: string; organizationName: string }> {
  return (err.details as unknown as Array<Record<string, unknown>>)
    .filter((d) => typeof d.organizationId === 'string')
    .map((d) => ({ organizationId: String(d.organizationId), organizationName: String(d.organizationName ?? d.organizationId) }));
}
