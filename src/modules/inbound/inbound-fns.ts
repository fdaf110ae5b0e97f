import { ALERT_LIMITS } from '../ingest/normalize-fns.ts';

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Labels or annotations built from a vendor's event, within the limits ingest enforces (docs/senders.md,
 * "Ingest"): an entry that would break one is left out rather than refusing the whole event, since the
 * vendor's API takes it and the raw event is kept with the alert anyway. The first value of a key wins;
 * `unique` instead keeps both, the second as "key (2)".
 */
export class BoundedMap {
  readonly entries: Record<string, string> = Object.create(null);
  #bytes = 2;

  add(key: string, value: string, opts: { unique?: boolean } = {}): void {
    let k = key.trim();
    if (k === '' || k.length > ALERT_LIMITS.entryKey || value.length > ALERT_LIMITS.entryValue) return;
    if (k in this.entries) {
      if (!opts.unique) return;
      let n = 2;
      while (`${k} (${n})` in this.entries) n++;
      k = `${k} (${n})`;
    }
    const bytes = Buffer.byteLength(JSON.stringify(k)) + Buffer.byteLength(JSON.stringify(value)) + 2;
    if (Object.keys(this.entries).length >= ALERT_LIMITS.entries || this.#bytes + bytes > ALERT_LIMITS.mapBytes) return;
    this.entries[k] = value;
    this.#bytes += bytes;
  }
}

/** A link a person can follow from the alert: http or https only (no `javascript:`, `data:` or `file:`). */
export function webUrl(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? v : null;
  } catch {
    return null;
  }
}

/** A label value: a scalar of one short line (longer text belongs in the description, not in conditions). */
export function labelValue(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
  const s = String(v);
  return s.length <= 255 && !/[\r\n]/.test(s) ? s : null;
}

/** Text cut to `max` characters, with an ellipsis where it was cut. */
export const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
