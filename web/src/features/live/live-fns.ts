/** What the stream says changed: the alert or incident id and its state after the change. */
export interface LiveData {
  id: string;
  status: string;
  severity: string;
  title: string;
}

export const ALERT_EVENTS = ['alert.created', 'alert.updated', 'alert.resolved'] as const;
export const INCIDENT_EVENTS = ['incident.created', 'incident.updated'] as const;

/** The query-cache prefixes an event makes stale (the pages refetch what they show). */
export function staleKeys(type: string, data: LiveData | null): unknown[][] {
  if ((ALERT_EVENTS as readonly string[]).includes(type)) return [['alerts'], ...(data ? [['alert', data.id]] : [['alert']])];
  // The client board counts open incidents too; it lives under `alerts`, which alert events already refresh.
  if ((INCIDENT_EVENTS as readonly string[]).includes(type)) return [['incidents'], ['alerts', 'client-board']];
  return [];
}

/** The document title's prefix: how many alerts fire, when any do. */
export const titlePrefix = (firing: number | undefined): string => (firing ? `(${firing > 999 ? '999+' : firing}) ` : '');

/** A new critical alert is announced (sound or desktop notification); updates and other severities are not. */
export const announces = (type: string, data: LiveData | null): data is LiveData =>
  type === 'alert.created' && data !== null && data.severity === 'critical' && data.status === 'firing';

/**
 * Calls `flush` with every key gathered, at most once per `ms`: a burst of events becomes one refetch. The
 * first call after a quiet spell flushes at once, so a single change shows without delay.
 */
export function throttle(ms: number, flush: (keys: unknown[][]) => void, now: () => number = Date.now) {
  let pending = new Map<string, unknown[]>();
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    timer = null;
    last = now();
    const keys = [...pending.values()];
    pending = new Map();
    flush(keys);
  };
  return {
    add(keys: unknown[][]): void {
      for (const k of keys) pending.set(JSON.stringify(k), k);
      if (timer) return;
      const wait = last + ms - now();
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    },
    cancel(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export const parseData = (raw: string): LiveData | null => {
  try {
    const v = JSON.parse(raw) as Partial<LiveData>;
    return typeof v.id === 'string' ? (v as LiveData) : null;
  } catch {
    return null;
  }
};
