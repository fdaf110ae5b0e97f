import { useEffect, type ReactNode } from 'react';

let titleBase = 'AlertFlow';
let titleLead = '';
const renderTitle = () => {
  document.title = `${titleLead}${titleBase}`;
};

/** Text put before every page's title (the live updates' firing count, `(3) `). */
export function setTitlePrefix(prefix: string): void {
  titleLead = prefix;
  renderTitle();
}

/**
 * A page's heading, its actions, and the document title. With `thumb`, a phone shows the actions in a bar at the
 * bottom of the screen, where the thumb reaches them (a record's page: acknowledge, resolve).
 */
export function Page({ title, actions, thumb = false, children }: { title: string; actions?: ReactNode; thumb?: boolean; children: ReactNode }) {
  useEffect(() => {
    titleBase = `${title} · AlertFlow`;
    renderTitle();
  }, [title]);
  return (
    <section className="page">
      <header className="page-head">
        <h1>{title}</h1>
        {actions && <div className={thumb ? 'actions thumb-top' : 'actions'}>{actions}</div>}
      </header>
      {children}
      {/* Only one of the two is displayed (app.css): the other is out of the page and of the accessibility tree. */}
      {thumb && actions && <div className="actions thumb-bar">{actions}</div>}
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
