import type { ErrorDetail } from '../../lib/errors.ts';
import { SEVERITIES, STATUSES, type AlertStatus, type Severity } from '../alerts/alerts-fns.ts';

/**
 * A field mapping (contract §4): how one sender's JSON becomes standard payloads. Pure data, so presets
 * are mappings too and the dashboard's editor can show and change them.
 */
export interface Mapping {
  itemsPath?: string | undefined;
  /** target → source path, or a list of paths tried in order (the first that yields a value wins). */
  fields?: Record<string, string | string[]> | undefined;
  severityMap?: Record<string, Severity> | undefined;
  statusMap?: Record<string, AlertStatus> | undefined;
  defaults?: Record<string, string> | undefined;
}

/** The standard scalar fields a mapping can fill. `labels` / `annotations` take an object, `labels.<key>` one value. */
export const SCALAR_TARGETS = ['title', 'severity', 'status', 'source', 'description', 'fingerprint', 'dedup_key'] as const;
const MAP_TARGETS = ['labels', 'annotations'] as const;
const STANDARD_FIELDS: readonly string[] = [...SCALAR_TARGETS, ...MAP_TARGETS];

/** Segments that could reach an object's prototype; refused in paths and keys whatever the object. */
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_SEGMENTS = 32;
const MAX_PATH = 512;
export const MAX_ITEMS = 1000;
/** `*` in a severity or status map: any value that is neither mapped nor a standard value. */
export const ANY = '*';

export interface ParsedPath {
  fromRoot: boolean;
  segments: string[];
}

/** Parses `a.b.0.c` or `$.a.b`; null when malformed (empty segment, prototype segment, too long). */
export function parsePath(path: string): ParsedPath | null {
  if (path.length === 0 || path.length > MAX_PATH) return null;
  const fromRoot = path.startsWith('$.');
  const segments = (fromRoot ? path.slice(2) : path).split('.');
  if (segments.length > MAX_SEGMENTS || segments.some((s) => s === '' || FORBIDDEN.has(s))) return null;
  return { fromRoot, segments };
}

/** Reads a path: own properties of plain objects and indexes of arrays only, so nothing inherited is ever read. */
export function readPath(root: unknown, item: unknown, path: ParsedPath): unknown {
  let cur: unknown = path.fromRoot ? root : item;
  for (const seg of path.segments) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return undefined;
    }
  }
  return cur;
}

type Target = { kind: 'scalar'; field: string } | { kind: 'map'; field: 'labels' | 'annotations' } | { kind: 'entry'; field: 'labels' | 'annotations'; key: string };

function parseTarget(target: string): Target | null {
  if ((SCALAR_TARGETS as readonly string[]).includes(target)) return { kind: 'scalar', field: target };
  if (target === 'labels' || target === 'annotations') return { kind: 'map', field: target };
  const dot = target.indexOf('.');
  const field = target.slice(0, dot);
  const key = target.slice(dot + 1);
  if (dot > 0 && (field === 'labels' || field === 'annotations') && key !== '' && key.length <= 512 && !FORBIDDEN.has(key)) {
    return { kind: 'entry', field, key };
  }
  return null;
}

const pathsOf = (source: string | string[]): string[] => (Array.isArray(source) ? source : [source]);

/** Everything the schema cannot say: known targets and well-formed paths. */
export function checkMapping(m: Mapping): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (m.itemsPath !== undefined && parsePath(m.itemsPath)?.fromRoot !== false) {
    errors.push({ path: '/mapping/itemsPath', message: 'must be a dot path such as "alerts" (no "$.", no empty or prototype segments)' });
  }
  for (const [target, source] of Object.entries(m.fields ?? {})) {
    if (!parseTarget(target)) errors.push({ path: `/mapping/fields/${target}`, message: unknownTarget(target) });
    pathsOf(source).forEach((p, i) => {
      if (!parsePath(p)) {
        const where = Array.isArray(source) ? `/mapping/fields/${target}/${i}` : `/mapping/fields/${target}`;
        errors.push({ path: where, message: `"${p}" is not a valid path: use dot notation (a.b.0.c, $.x for the payload root); __proto__, constructor and prototype are refused` });
      }
    });
  }
  for (const target of Object.keys(m.defaults ?? {})) {
    const t = parseTarget(target);
    if (!t || t.kind === 'map') errors.push({ path: `/mapping/defaults/${target}`, message: t ? 'defaults take single values: use labels.<key>' : unknownTarget(target) });
  }
  return errors;
}

const unknownTarget = (t: string) =>
  `unknown target "${t}": use one of ${STANDARD_FIELDS.join(', ')}, labels.<key> or annotations.<key>`;

/** A standard payload built from one item, and where each of its fields came from (for error messages). */
export interface MappedItem {
  payload: Record<string, unknown>;
  /** The sender's element: kept with the alert for inspection. */
  raw: unknown;
  /** JSON pointer of the item in the sender's payload ('' without itemsPath). */
  pointer: string;
  /** Target → the mapped paths that were tried. */
  sources: Map<string, string[]>;
}

export type MapResult = { ok: true; items: MappedItem[] } | { ok: false; errors: ErrorDetail[] };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '';
const pointerOf = (path: ParsedPath): string => `/${path.segments.join('/')}`;

/** Translates a sender's value through a severity or status map: exact, then case-insensitive, then pass-through, then `*`. */
export function translate(value: unknown, map: Record<string, string> | undefined, standard: readonly string[]): unknown {
  if (!map || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) return value;
  const s = String(value);
  if (Object.hasOwn(map, s)) return map[s];
  const lower = s.toLowerCase();
  for (const [from, to] of Object.entries(map)) if (from !== ANY && from.toLowerCase() === lower) return to;
  if (standard.includes(lower)) return s;
  return Object.hasOwn(map, ANY) ? map[ANY] : value;
}

/** First non-empty value among the paths. */
function firstValue(root: unknown, item: unknown, paths: string[]): unknown {
  for (const p of paths) {
    const parsed = parsePath(p);
    const v = parsed ? readPath(root, item, parsed) : undefined;
    if (!isEmpty(v)) return v;
  }
  return undefined;
}

/** A copy of `base` (when it is an object) with one more entry; null-prototype, so any key stays plain data. */
function withEntry(base: unknown, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = Object.create(null);
  if (isObject(base)) for (const [k, v] of Object.entries(base)) copy[k] = v;
  copy[key] = value;
  return copy;
}

/** Builds the standard payload of one item: pass-through fields, then mapped fields, then defaults and value maps. */
function mapItem(m: Mapping, root: unknown, item: unknown, pointer: string): MappedItem {
  const out: Record<string, unknown> = {};
  const sources = new Map<string, string[]>();
  // Standard fields present in the item and not mapped pass through.
  if (isObject(item)) for (const f of STANDARD_FIELDS) if (Object.hasOwn(item, f)) out[f] = item[f];

  const entries: Array<[Target & { kind: 'entry' }, unknown]> = [];
  for (const [target, source] of Object.entries(m.fields ?? {})) {
    const t = parseTarget(target);
    if (!t) continue;
    const paths = pathsOf(source);
    sources.set(target, paths);
    const v = firstValue(root, item, paths);
    if (t.kind === 'entry') entries.push([t, v]);
    else out[t.field] = v;
  }
  // `labels.<key>` adds to (a copy of) the whole object, whichever way that object arrived.
  for (const [t, v] of entries) if (!isEmpty(v)) out[t.field] = withEntry(out[t.field], t.key, v);
  for (const [target, value] of Object.entries(m.defaults ?? {})) {
    const t = parseTarget(target);
    if (!t || t.kind === 'map') continue;
    if (t.kind === 'scalar') {
      if (isEmpty(out[t.field])) out[t.field] = value;
      continue;
    }
    const base = out[t.field];
    if (!isObject(base) || isEmpty(base[t.key])) out[t.field] = withEntry(base, t.key, value);
  }
  if (!isEmpty(out.severity)) out.severity = translate(out.severity, m.severityMap, SEVERITIES);
  if (!isEmpty(out.status)) out.status = translate(out.status, m.statusMap, STATUSES);
  // Senders send numbers and booleans where we keep text (Zabbix event ids, Uptime Kuma states).
  for (const f of SCALAR_TARGETS) {
    const v = out[f];
    if (typeof v === 'number' || typeof v === 'boolean') out[f] = String(v);
    else if (v === undefined) delete out[f];
  }
  return { payload: out, raw: item, pointer, sources };
}

/** Applies a mapping to a sender's payload: one standard payload per item, or errors naming the bad part. */
export function applyMapping(m: Mapping, payload: unknown): MapResult {
  if (m.itemsPath === undefined) return { ok: true, items: [mapItem(m, payload, payload, '')] };
  const path = parsePath(m.itemsPath);
  const items = path ? readPath(payload, payload, path) : undefined;
  const at = path ? pointerOf(path) : '';
  if (!Array.isArray(items)) return { ok: false, errors: [{ path: at, message: `must be an array of alerts (the mapping's itemsPath is "${m.itemsPath}")` }] };
  if (items.length === 0) return { ok: false, errors: [{ path: at, message: 'holds no alerts' }] };
  if (items.length > MAX_ITEMS) return { ok: false, errors: [{ path: at, message: `must hold at most ${MAX_ITEMS} alerts` }] };
  return { ok: true, items: items.map((item, i) => mapItem(m, payload, item, `${at}/${i}`)) };
}

/**
 * Rewrites an error found in a mapped item so that it names the sender's element and the mapped path:
 * `/alerts/3/title`, "is required: the mapped path "labels.alertname" is empty".
 */
export function explainError(item: MappedItem, e: ErrorDetail): ErrorDetail {
  const [, field = '', key] = e.path.split('/');
  const target = key !== undefined && item.sources.has(`${field}.${key}`) ? `${field}.${key}` : field;
  const paths = item.sources.get(target);
  const path = `${item.pointer}${e.path}`;
  if (!paths) return { path, message: e.message };
  const shown = paths.map((p) => `"${p}"`).join(', ');
  const message = e.message === 'is required'
    ? `is required: the mapped path ${shown} ${paths.length > 1 ? 'are all' : 'is'} empty`
    : `${e.message} (mapped from ${shown})`;
  return { path, message };
}
