import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

function describe(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Check your connection and try again.';
  if (error.status === 429 && error.retryAfter) return `${error.message}. Try again in ${error.retryAfter} s.`;
  if (error.status === 403) return `You are not allowed to do this: ${error.message}`;
  return error.message;
}

/**
 * An API error in words. Details naming a field already show beside that field; the ones that name none
 * (or a field the form does not have) are listed here, so no reason is ever hidden.
 */
export function ErrorDisplay({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : [];
  const rest = details.filter((d) => !fields.some((f) => d.path === `/${f}` || d.path.startsWith(`/${f}/`)));
  // When every reason already shows beside its field, the envelope's generic words ("… is invalid") would only
  // repeat that: say where to look instead.
  const placed = details.length - rest.length;
  const summary = placed > 0 && rest.length === 0 ? `${placed === 1 ? 'One field needs' : `${placed} fields need`} a change: see the messages beside them.` : describe(error);
  return (
    <div className="error-box" role="alert">
      <p>{summary}</p>
      {rest.length > 0 && (
        <ul>{rest.map((d) => <li key={`${d.path}${d.message}`}><code>{d.path || '(body)'}</code> {d.message}</li>)}</ul>
      )}
    </div>
  );
}

/**
 * A record page whose query failed: `missing` for a 404 (a missing record and another organization's look the
 * same), else the error in words.
 */
export function RecordError({ error, missing }: { error: unknown; missing: ReactNode }) {
  return error instanceof ApiError && error.status === 404 ? <>{missing}</> : <ErrorDisplay error={error} />;
}
