import { useSyncExternalStore } from 'react';

/** The phone layout's breakpoint, the same as app.css's `max-width: 640px` rules. */
const NARROW = '(max-width: 640px)';

const subscribe = (onChange: () => void) => {
  const m = window.matchMedia(NARROW);
  m.addEventListener('change', onChange);
  return () => m.removeEventListener('change', onChange);
};

/** Whether the screen is phone-narrow: lists render as cards there instead of tables. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(NARROW).matches, () => false);
}
