import type { ReactNode } from 'react';

/**
 * A table that may scroll sideways on a narrow screen: a named region that takes keyboard focus, so it can be
 * scrolled without a pointer (axe's scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>;
}
