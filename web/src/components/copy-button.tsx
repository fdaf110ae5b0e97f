import { useState } from 'react';

/** Copies `text` to the clipboard and says so; the text itself stays visible for manual copying. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className="secondary" onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text' : label}
    </button>
  );
}

/** One value a person pastes into another tool, with its copy button: a row of a `<dl>`. */
export function CopyValue({ label, value, testId, copy }: { label: string; value: string; testId: string; copy: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className="copy-row">
        <code className="break" data-testid={testId}>{value}</code>
        <CopyButton text={value} label={copy} />
      </dd>
    </div>
  );
}
