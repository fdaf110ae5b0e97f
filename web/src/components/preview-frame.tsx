import type { ReactNode } from 'react';
import { ErrorDisplay } from './error-display';

interface PreviewQuery<T> {
  data: T | undefined;
  error: unknown;
  isFetching: boolean;
}

/**
 * A server preview of an unsaved form: its refusal in words until the form is valid, then its answer (busy while a
 * newer one is asked for). A form nobody has changed yet (`untouched`) is not told what is wrong with it: it says
 * what the preview will show instead.
 */
export function PreviewFrame<T>({ query, testId, untouched = false, children }: { query: PreviewQuery<T>; testId: string; untouched?: boolean; children: (data: T) => ReactNode }) {
  if (query.error && untouched) return <p className="muted" data-testid={testId}>The preview appears here once the form is filled in.</p>;
  if (query.error) return <div data-testid={testId}><p>Nothing to preview until the form is valid:</p><ErrorDisplay error={query.error} /></div>;
  if (query.data === undefined) return <p className="muted" aria-busy="true">Previewing…</p>;
  return <div data-testid={testId} aria-busy={query.isFetching}>{children(query.data)}</div>;
}
