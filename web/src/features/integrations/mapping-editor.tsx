import { plural } from '../../components/format';
import { useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import type { Mapping, Preview } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextAreaField, TextField } from '../../components/form';
import { MapRows } from './map-rows';
import { formOf, mappingOf, parseMapping, parseSample, type MappingForm } from './mapping-fns';
import { CodeBlock } from '../../components/code-block';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const STATUSES = ['firing', 'resolved', 'acknowledged', 'suppressed'] as const;
const TARGETS = ['title', 'severity', 'status', 'source', 'description', 'fingerprint', 'dedup_key', 'labels', 'annotations', 'labels.', 'annotations.'];

export interface Sample {
  label: string;
  text: string;
}

interface Props {
  initial: Mapping | null;
  samples: Sample[];
  preview: (payload: unknown, mapping: Mapping, signal: AbortSignal) => Promise<Preview>;
  onSave: (mapping: Mapping) => void;
  saving: boolean;
  saveError: unknown;
  saved: boolean;
  /** Milliseconds of typing quiet before a preview is asked for. */
  debounceMs?: number;
}

type PreviewState = { kind: 'idle' } | { kind: 'loading' } | { kind: 'done'; result: Preview } | { kind: 'failed'; error: unknown };

/** Asks for a preview whenever the mapping or the sample changes (debounced; an older answer never wins). */
function usePreview(sampleText: string, mapping: Mapping, preview: Props['preview'], debounceMs: number): PreviewState {
  const [state, setState] = useState<PreviewState>({ kind: 'idle' });
  const key = JSON.stringify(mapping);
  useEffect(() => {
    if (sampleText.trim() === '') {
      setState({ kind: 'idle' });
      return;
    }
    const sample = parseSample(sampleText);
    if (!sample.ok) {
      setState({ kind: 'failed', error: new Error(sample.error) });
      return;
    }
    const ctl = new AbortController();
    const t = setTimeout(() => {
      setState({ kind: 'loading' });
      preview(sample.value, JSON.parse(key) as Mapping, ctl.signal).then(
        (result) => { if (!ctl.signal.aborted) setState({ kind: 'done', result }); },
        (error: unknown) => { if (!ctl.signal.aborted) setState({ kind: 'failed', error }); },
      );
    }, debounceMs);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [sampleText, key, preview, debounceMs]);
  return state;
}

function PreviewPanel({ state }: { state: PreviewState }) {
  if (state.kind === 'idle') return <p className="muted">Paste or pick a sample payload to see what ingest would make of it.</p>;
  if (state.kind === 'loading') return <p className="muted" aria-busy="true">Previewing…</p>;
  if (state.kind === 'failed') {
    return state.error instanceof ApiError ? <ErrorDisplay error={state.error} /> : <p className="field-errors" role="alert">{(state.error as Error).message}</p>;
  }
  const r = state.result;
  if (!r.ok) {
    return (
      <div className="error-box" role="alert" data-testid="preview-errors">
        <p>Ingest would refuse this payload (400):</p>
        <ul>{r.errors.map((e) => <li key={`${e.path}${e.message}`}><code>{e.path || '(payload)'}</code> {e.message}</li>)}</ul>
      </div>
    );
  }
  return (
    <div data-testid="preview-alerts">
      <p>{plural(r.alerts.length, 'alert')} would be stored:</p>
      <CodeBlock label="Normalized alerts" text={JSON.stringify(r.alerts, null, 2)} />
    </div>
  );
}

/** Mapping errors from the API name paths under `/mapping/…`; each shows by its part of the form. */
function mappingErrors(error: unknown, part: string): string[] {
  return fieldErrors(error, `mapping/${part}`);
}

export function MappingEditor({ initial, samples, preview, onSave, saving, saveError, saved, debounceMs = 300 }: Props) {
  const [form, setForm] = useState<MappingForm>(() => formOf(initial));
  const [view, setView] = useState<'form' | 'json'>('form');
  const [jsonText, setJsonText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [sampleText, setSampleText] = useState(samples[0]?.text ?? '');
  const mapping = mappingOf(form);
  const state = usePreview(sampleText, mapping, preview, debounceMs);
  const previewError = state.kind === 'failed' ? state.error : null;
  const errorSource = saveError ?? previewError;

  const showJson = () => {
    setJsonText(JSON.stringify(mapping, null, 2));
    setJsonError(null);
    setView('json');
  };
  const applyJson = (text: string) => {
    setJsonText(text);
    const r = parseMapping(text);
    if (r.ok) {
      setForm(formOf(r.value));
      setJsonError(null);
    } else setJsonError(r.error);
  };
  const set = (patch: Partial<MappingForm>) => setForm({ ...form, ...patch });

  return (
    <div className="mapping-editor">
      <section className="panel" aria-labelledby="mapping-title">
        <div className="page-head">
          <h2 id="mapping-title">Mapping</h2>
          <div className="tabs" role="group" aria-label="Mapping view">
            <button type="button" className={view === 'form' ? undefined : 'secondary'} aria-pressed={view === 'form'} onClick={() => setView('form')}>Form</button>
            <button type="button" className={view === 'json' ? undefined : 'secondary'} aria-pressed={view === 'json'} onClick={showJson}>Raw JSON</button>
          </div>
        </div>
        {view === 'form' ? (
          <>
            <TextField label="Items path" value={form.itemsPath} onChange={(e) => set({ itemsPath: e.target.value })}
              hint="Where the payload holds a list of alerts (e.g. alerts); empty when the payload is one alert."
              errors={mappingErrors(errorSource, 'itemsPath')} />
            <MapRows legend="Fields" keyLabel="Target" valueLabel="Source paths" rows={form.fields} keyHints={TARGETS}
              onChange={(fields) => set({ fields })} errors={mappingErrors(errorSource, 'fields')} />
            <p className="hint">Targets: title, severity, status, source, description, fingerprint, dedup_key, labels.&lt;key&gt;, annotations.&lt;key&gt;. Paths in dot notation (a.b.0.c), several separated by commas are tried in order.</p>
            <MapRows legend="Severity map" keyLabel="Sender value" valueLabel="Severity" rows={form.severityMap} choices={SEVERITIES}
              onChange={(severityMap) => set({ severityMap })} errors={mappingErrors(errorSource, 'severityMap')} />
            <MapRows legend="Status map" keyLabel="Sender value" valueLabel="Status" rows={form.statusMap} choices={STATUSES}
              onChange={(statusMap) => set({ statusMap })} errors={mappingErrors(errorSource, 'statusMap')} />
            <MapRows legend="Defaults" keyLabel="Target" valueLabel="Value" rows={form.defaults} keyHints={TARGETS}
              onChange={(defaults) => set({ defaults })} errors={mappingErrors(errorSource, 'defaults')} />
          </>
        ) : (
          <TextAreaField label="Mapping as JSON" className="code" rows={16} value={jsonText} onChange={(e) => applyJson(e.target.value)}
            errors={jsonError ? [jsonError] : []} />
        )}
        <ErrorDisplay error={saveError} fields={['mapping']} />
        <div className="actions">
          {saved && <span role="status">Mapping saved.</span>}
          <button type="button" disabled={saving || jsonError !== null} onClick={() => onSave(mapping)}>Save mapping</button>
        </div>
      </section>
      <section className="panel" aria-labelledby="sample-title">
        <h2 id="sample-title">Sample and live preview</h2>
        {samples.length > 0 && (
          <div className="sample-picks" role="group" aria-label="Use a sample">
            {samples.map((s) => <button key={s.label} type="button" className="secondary small" onClick={() => setSampleText(s.text)}>{s.label}</button>)}
          </div>
        )}
        <TextAreaField label="Sample payload (JSON)" className="code" rows={10} value={sampleText} onChange={(e) => setSampleText(e.target.value)} />
        <h3>Preview</h3>
        <div aria-live="polite"><PreviewPanel state={state} /></div>
      </section>
    </div>
  );
}
