import { api, ApiError, setCsrfToken, unwrap } from '../../api/client';
import type { LoginBody, OrgChoice, SessionView, SetPasswordBody, SetupBody } from '../../api/types';

export type { SessionView };

function remember(s: SessionView): SessionView {
  setCsrfToken(s.csrfToken);
  return s;
}

/** The current session, or null when signed out (the csrf token is kept in memory for later writes). */
export async function fetchSession(): Promise<SessionView | null> {
  try {
    return remember((await unwrap(api.GET('/auth/session'))).data);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw err;
  }
}

export async function login(body: LoginBody): Promise<SessionView> {
  return remember((await unwrap(api.POST('/auth/login', { body }))).data);
}

export async function logout(): Promise<void> {
  await unwrap(api.POST('/auth/logout'));
  setCsrfToken(null);
}

export async function setupNeeded(): Promise<boolean> {
  return (await unwrap(api.GET('/auth/setup'))).data.needed;
}

export async function setup(body: SetupBody): Promise<SessionView> {
  return remember((await unwrap(api.POST('/auth/setup', { body }))).data);
}

export async function setPassword(body: SetPasswordBody): Promise<SessionView> {
  return remember((await unwrap(api.POST('/auth/set-password', { body }))).data);
}

/** The organizations a 409 at sign-in offers to choose from. */
export function orgChoices(err: ApiError): OrgChoice[] {
  return (err.details as Array<Partial<OrgChoice>>).filter((d): d is OrgChoice => typeof d.organizationId === 'string');
}
