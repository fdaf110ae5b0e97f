import { useId, useState, type ReactNode } from 'react';

/**
 * A list's filters: always shown on a wide screen; on a phone folded behind a "Filters" button (saying how many
 * are applied) so the list starts on the first screen. Applying the filters folds them again.
 */
export function FilterFold({ active, children }: { active: number; children: (fold: () => void) => ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="filter-fold">
      <button type="button" className="secondary filter-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Filters{active > 0 ? ` (${active})` : ''}
      </button>
      <div id={id} className={open ? 'filter-body open' : 'filter-body'}>{children(() => setOpen(false))}</div>
    </div>
  );
}
