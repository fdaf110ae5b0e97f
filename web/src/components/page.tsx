import { useEffect, type ReactNode } from 'react';

/** A page's heading, its actions, and the document title. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · AlertFlow`;
  }, [title]);
  return (
    <section className="page">
      <header className="page-head">
        <h1>{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** Placeholder rows of the final height, so content does not jump when it arrives. */
export function Loading({ rows = 5 }: { rows?: number }) {
  return (
    <div className="loading" role="status" aria-busy="true" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => <div key={i} className="skeleton" />)}
    </div>
  );
}
