import type { Mapping } from '../../api/types';

/** One editable line of a map: `key` → `value` (for fields, value is comma-separated paths tried in order). */
export interface Row {
  key: string;
  value: string;
}

export interface MappingForm {
  itemsPath: string;
  fields: Row[];
  severityMap: Row[];
  statusMap: Row[];
  defaults: Row[];
}

const rows = (m: Record<string, string | string[]> | undefined): Row[] =>
  Object.entries(m ?? {}).map(([key, v]) => ({ key, value: Array.isArray(v) ? v.join(', ') : v }));

export function formOf(m: Mapping | null): MappingForm {
  return {
    itemsPath: m?.itemsPath ?? '',
    fields: rows(m?.fields),
    severityMap: rows(m?.severityMap),
    statusMap: rows(m?.statusMap),
    defaults: rows(m?.defaults),
  };
}

/** Rows with an empty key are lines still being typed: they are left out rather than sent. */
function record<V>(list: Row[], value: (v: string) => V): Record<string, V> | undefined {
  const out: Record<string, V> = {};
  for (const r of list) if (r.key.trim() !== '') out[r.key.trim()] = value(r.value.trim());
  return Object.keys(out).length ? out : undefined;
}

function paths(v: string): string | string[] {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  return list.length === 1 ? (list[0] as string) : list;
}

/** The mapping the form describes, in the API's shape; enum values are checked by the API, not here. */
export function mappingOf(f: MappingForm): Mapping {
  const m: Mapping = {};
  if (f.itemsPath.trim()) m.itemsPath = f.itemsPath.trim();
  const fields = record(f.fields, paths);
  if (fields) m.fields = fields;
  const sev = record(f.severityMap, (v) => v);
  if (sev) m.severityMap = sev as Mapping['severityMap'];
  const st = record(f.statusMap, (v) => v);
  if (st) m.statusMap = st as Mapping['statusMap'];
  const defaults = record(f.defaults, (v) => v);
  if (defaults) m.defaults = defaults;
  return m;
}

/** A sample as the user pasted it: JSON when it parses, otherwise an error to show in words. */
export function parseSample(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: `The sample is not valid JSON: ${(e as Error).message}` };
  }
}

/** A raw JSON mapping typed into the JSON view: an object, or an error in words. */
export function parseMapping(text: string): { ok: true; value: Mapping } | { ok: false; error: string } {
  const r = parseSample(text);
  if (!r.ok) return { ok: false, error: r.error.replace('sample', 'mapping') };
  if (typeof r.value !== 'object' || r.value === null || Array.isArray(r.value)) return { ok: false, error: 'The mapping must be a JSON object.' };
  return { ok: true, value: r.value as Mapping };
}
