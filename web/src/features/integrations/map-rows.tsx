import { useId } from 'react';
import type { Row } from './mapping-fns';

interface Props {
  legend: string;
  keyLabel: string;
  valueLabel: string;
  rows: Row[];
  onChange: (rows: Row[]) => void;
  /** When given, the value is picked from these (severity, status); otherwise typed. */
  choices?: readonly string[];
  keyHints?: readonly string[];
  errors?: string[];
}

/** An editable key → value table (field paths, value maps, defaults), one labelled row per entry. */
export function MapRows({ legend, keyLabel, valueLabel, rows, onChange, choices, keyHints, errors = [] }: Props) {
  const id = useId();
  const set = (i: number, patch: Partial<Row>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="map-rows">
      <legend>{legend}</legend>
      {keyHints && <datalist id={`${id}-keys`}>{keyHints.map((k) => <option key={k} value={k} />)}</datalist>}
      {rows.length === 0 && <p className="muted">None.</p>}
      {rows.map((r, i) => (
        <div className="map-row" key={i}>
          <input aria-label={`${keyLabel} ${i + 1}`} value={r.key} placeholder={keyLabel} list={keyHints ? `${id}-keys` : undefined}
            onChange={(e) => set(i, { key: e.target.value })} />
          <span aria-hidden="true">→</span>
          {choices ? (
            <select aria-label={`${valueLabel} ${i + 1}`} value={r.value} onChange={(e) => set(i, { value: e.target.value })}>
              <option value="">Choose…</option>
              {choices.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
          ) : (
            <input aria-label={`${valueLabel} ${i + 1}`} value={r.value} placeholder={valueLabel} onChange={(e) => set(i, { value: e.target.value })} />
          )}
          <button type="button" className="secondary small" aria-label={`Remove ${legend.toLowerCase()} row ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}>Remove</button>
        </div>
      ))}
      <button type="button" className="secondary small" onClick={() => onChange([...rows, { key: '', value: '' }])}>Add {legend.toLowerCase()} row</button>
      {errors.length > 0 && <ul className="field-errors" role="alert">{errors.map((m) => <li key={m}>{m}</li>)}</ul>}
    </fieldset>
  );
}
