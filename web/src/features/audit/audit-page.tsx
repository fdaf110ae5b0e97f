import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { AuditQuery } from '../../api/types';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { useActorText } from '../../api/actors';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { TableWrap } from '../../components/table-wrap';

type Filters = Omit<AuditQuery, 'cursor' | 'limit'>;
const ACTOR_TYPES = ['user', 'api_key', 'integration', 'system'] as const;

/** `from`/`to` are instants in the URL and the API; the inputs show them in the browser's local time. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * An `api_key.used` event counts a minute's requests of one key, method, path, status and address: "3 × GET
 * /api/v1/alerts → 200", so a row is not read as one request.
 */
function keyUse(m: Record<string, unknown>): string {
  const uses = typeof m.uses === 'number' ? m.uses : 1;
  return `${uses} × ${String(m.method ?? '')} ${String(m.path ?? '')} → ${String(m.status ?? '')}`;
}

function filtersOf(params: URLSearchParams): Filters {
  const f: Filters = {};
  for (const k of ['action', 'actorId', 'from', 'to'] as const) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  const type = params.get('actorType');
  const known = ACTOR_TYPES.find((t) => t === type);
  if (known) f.actorType = known;
  return f;
}

function useAuditLog(filters: Filters) {
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
  const filters = filtersOf(params);
  const log = useAuditLog(filters);
  const actorText = useActorText();
  const { fetchNextPage, hasNextPage, isFetchingNextPage } = log;
  const sentinel = useLoadOnView(() => { if (!isFetchingNextPage) void fetchNextPage(); }, Boolean(hasNextPage));
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of ['action', 'actorType', 'actorId'] as const) {
      const v = String(form.get(k) ?? '').trim();
      if (v) next.set(k, v);
    }
    for (const k of ['from', 'to'] as const) {
      const v = String(form.get(k) ?? '');
      if (v) next.set(k, new Date(v).toISOString());
    }
    setParams(next);
  };
  return (
    <Page title="Audit log">
      <form className="filters" onSubmit={submit} role="search" key={params.toString()}>
        <TextField label="Action" name="action" errors={fieldErrors(log.error, 'action')} placeholder="api_key.used" defaultValue={params.get('action') ?? ''}
          hint="An exact action, e.g. api_key.used or integration.created" />
        <SelectField label="Actor type" name="actorType" errors={fieldErrors(log.error, 'actorType')} defaultValue={params.get('actorType') ?? ''}>
          <option value="">Any actor</option>
          {ACTOR_TYPES.map((t) => <option key={t} value={t}>{t.replace('_', ' ')}</option>)}
        </SelectField>
        <TextField label="Actor id" name="actorId" errors={fieldErrors(log.error, 'actorId')} defaultValue={params.get('actorId') ?? ''} hint="A user or API key id" />
        <TextField label="From" name="from" errors={fieldErrors(log.error, 'from')} type="datetime-local" defaultValue={toLocalInput(params.get('from'))} />
        <TextField label="To" name="to" errors={fieldErrors(log.error, 'to')} type="datetime-local" defaultValue={toLocalInput(params.get('to'))} />
        <div className="filter-actions"><button type="submit">Apply filters</button></div>
      </form>
      <ErrorDisplay error={log.error} fields={['action', 'actorType', 'actorId', 'from', 'to']} />
      {log.isPending ? <Loading rows={8} /> : rows.length === 0 ? (
        <EmptyState title="No matching events">
          <p>{Object.keys(filters).length ? 'Change or clear the filters.' : 'Events appear here as people and keys change things.'}</p>
        </EmptyState>
      ) : (
        <TableWrap label="Audit events">
          <table>
            <thead>
              <tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col" className="wide-only">IP</th></tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{formatTime(e.createdAt)}</td>
                  <td><code>{e.action}</code>{e.action === 'api_key.used' && <> <span className="muted">{keyUse(e.metadata)}</span></>}</td>
                  <td className="break">{actorText(e.actor)}</td>
                  <td className="break">{e.target ? `${e.target.type} ${e.target.id ?? ''}` : '—'}</td>
                  <td className="wide-only">{e.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
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
