import { useState } from 'react';
import type { AlertListItem, DryRun, SampleAlert } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { SelectField, TextAreaField } from '../../components/form';
import { actionLabel } from './action-types';
import { sampleOf } from './workflow-fns';

interface Props {
  alerts: AlertListItem[];
  onTest: (alert: SampleAlert, done: (r: DryRun) => void) => void;
  testing: boolean;
  error: unknown;
  /** Fields the editor shows the test's problems beside; the others are listed here. */
  formFields: string[];
}

const PASTE = 'A pasted alert';
const EXAMPLE: SampleAlert = { title: 'Disk almost full', severity: 'high', source: 'db1', labels: { env: 'prod', service: 'db' } };

/** "Test against an alert": a recent alert or a pasted one, through the dry run; nothing is stored or sent. */
export function TestPanel({ alerts, onTest, testing, error, formFields }: Props) {
  const [picked, setPicked] = useState('');
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const [result, setResult] = useState<DryRun | null>(null);

  const pick = (id: string) => {
    setPicked(id);
    const a = alerts.find((x) => x.id === id);
    if (a) setText(JSON.stringify(sampleOf(a), null, 2));
  };
  const run = () => {
    let alert: SampleAlert;
    try {
      alert = JSON.parse(text) as SampleAlert;
    } catch (e) {
      setParseError(`is not valid JSON: ${(e as Error).message}`);
      return;
    }
    setParseError(null);
    setResult(null);
    onTest(alert, setResult);
  };

  return (
    <section className="panel" aria-labelledby="test-title">
      <h2 id="test-title">Test against an alert</h2>
      <p className="muted">Runs the definition as it is in the editor, saved or not, on a sample. Nothing is stored, sent or changed.</p>
      <SelectField label="Recent alert" value={picked} onChange={(e) => pick(e.target.value)}
        hint={alerts.length === 0 ? 'No alerts yet: paste one below.' : 'Or edit or paste an alert below.'}>
        <option value="">{PASTE}</option>
        {alerts.map((a) => <option key={a.id} value={a.id}>{a.title} ({a.severity}, {a.status})</option>)}
      </SelectField>
      <TextAreaField label="Sample alert (JSON)" className="code" rows={10} value={text} onChange={(e) => { setText(e.target.value); setPicked(''); }}
        errors={parseError ? [parseError] : []} hint="title and severity are required; labels, annotations, source, status … as an alert has them." />
      <div className="actions start">
        <button type="button" onClick={run} disabled={testing}>Run test</button>
      </div>
      <ErrorDisplay error={error} fields={formFields} />
      <div aria-live="polite" data-testid="test-result">
        {result && (result.matched ? (
          <>
            <p><strong>Matches.</strong> The actions would:</p>
            <ol className="planned">
              {result.actions.map((a) => <li key={a.index}><span className="muted">{actionLabel(a.type)}:</span> {a.description}</li>)}
            </ol>
          </>
        ) : <p><strong>Does not match</strong>: no action would run.</p>)}
      </div>
    </section>
  );
}
