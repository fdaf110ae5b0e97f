import { useState } from 'react';

/** Cursor paging of a list: the cursors of the pages before this one, so Previous goes back without a server cursor. */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors.at(-1),
    hasPrevious: cursors.length > 0,
    previous: () => setCursors(cursors.slice(0, -1)),
    next: (cursor: string) => setCursors([...cursors, cursor]),
    reset: () => setCursors([]),
  };
}

export function Pager({ pages, meta }: { pages: ReturnType<typeof useCursorPages>; meta: { hasMore: boolean; nextCursor: string | null } | undefined }) {
  return (
    <div className="pager">
      <button type="button" className="secondary" disabled={!pages.hasPrevious} onClick={pages.previous}>Previous page</button>
      <button type="button" className="secondary" disabled={!meta?.hasMore} onClick={() => meta?.nextCursor && pages.next(meta.nextCursor)}>Next page</button>
    </div>
  );
}
