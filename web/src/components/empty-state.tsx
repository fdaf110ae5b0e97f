import type { ReactNode } from 'react';

/** What an empty page shows: what is missing and what to do next. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty-state">
      <h2>{title}</h2>
      <div>{children}</div>
    </div>
  );
}
