import { useLocation, useNavigate, useSearchParams } from 'react-router';

interface PagerState {
  /** The cursors of the pages before this one, so Previous goes back without a server cursor. */
  before?: string[];
}

/**
 * Cursor paging kept in the address (`cursor=`): a reload or a shared link opens the same page. The cursors of
 * the pages before it ride in the history entry's state; a link opened cold has none, and Previous then goes to
 * the first page. Every move scrolls to the top, where the new page starts.
 */
export function useCursorPages() {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const cursor = params.get('cursor') ?? undefined;
  const before = (location.state as PagerState | null)?.before ?? [];
  const go = (next: string | undefined, stack: string[]) => {
    const p = new URLSearchParams(params);
    if (next) p.set('cursor', next);
    else p.delete('cursor');
    const search = p.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : '' }, { state: { before: stack } satisfies PagerState });
    window.scrollTo({ top: 0 });
  };
  return {
    cursor,
    hasPrevious: cursor !== undefined,
    previous: () => go(before.at(-1), before.slice(0, -1)),
    next: (c: string) => go(c, cursor === undefined ? [] : [...before, cursor]),
    /** The address for filters `next` on the first page (what a filter form applies). */
    firstPage: (next: URLSearchParams) => {
      next.delete('cursor');
      return next;
    },
  };
}

export function Pager({ pages, meta }: { pages: ReturnType<typeof useCursorPages>; meta: { hasMore: boolean; nextCursor: string | null } | undefined }) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={!pages.hasPrevious} onClick={pages.previous}>Previous page</button>
      <button type="button" className="secondary" disabled={!meta?.hasMore} onClick={() => meta?.nextCursor && pages.next(meta.nextCursor)}>Next page</button>
    </nav>
  );
}
