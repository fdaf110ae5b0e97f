import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { AuditQuery } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { TextField } from '../../components/form';
import { actorText, formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';

const FILTERS = ['action'] as const;

function useAuditLog(filters: Omit<AuditQuery, 'cursor' | 'limit'>) {
  return useInfiniteQuery({
    queryKey: ['audit-log', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      unwrap(api.GET('/audit-log', { params: { query: { ...filters, limit: 50, ...(pageParam && { cursor: pageParam }) } }, signal })),
    getNextPageParam: (last) => (last.meta.hasMore ? (last.meta.nextCursor ?? undefined) : undefined),
  });
}

/** Loads the next page when the end of the list scrolls into view. */
function useLoadOnView(load: () => void, enabled: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !enabled) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) load();
    });
    io.observe(el);
    return () => io.disconnect();
  }, [load, enabled]);
  return ref;
}

export default function AuditPage() {
  const [params, setParams] = useSearchParams();
  const filters: Omit<AuditQuery, 'cursor' | 'limit'> = {};
  for (const k of FILTERS) {
    const v = params.get(k);
    if (v) filters[k] = v;
  }
  const log = useAuditLog(filters);
  const { fetchNextPage, hasNextPage, isFetchingNextPage } = log;
  const sentinel = useLoadOnView(() => { if (!isFetchingNextPage) void fetchNextPage(); }, Boolean(hasNextPage));
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(form.get(k) ?? '').trim();
      if (v) next.set(k, v);
    }
    setParams(next);
  };
  return (
    <Page title="Audit log">
      <form className="filters" onSubmit={submit} role="search" key={params.toString()}>
        <TextField label="Action" name="action" placeholder="api_key.used" defaultValue={params.get('action') ?? ''}
          hint="An exact action, e.g. api_key.used or integration.created" />
        <div className="filter-actions"><button type="submit">Apply filters</button></div>
      </form>
      <ErrorDisplay error={log.error} />
      {log.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title="No matching events">
          <p>{Object.keys(filters).length ? 'Change or clear the filters.' : 'Events appear here as people and keys change things.'}</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col" className="wide-only">IP</th></tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{formatTime(e.createdAt)}</td>
                  <td><code>{e.action}</code></td>
                  <td className="break">{actorText(e.actor)}</td>
                  <td className="break">{e.target ? `${e.target.type} ${e.target.id ?? ''}` : '—'}</td>
                  <td className="wide-only">{e.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div ref={sentinel} className="pager">
        {hasNextPage && (
          <button type="button" className="secondary" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
            {isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
    </Page>
  );
}
