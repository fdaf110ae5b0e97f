import { useEffect, useState } from 'react';
import { TextAreaField, TextField } from '../../components/form';

interface Props<T> {
  label: string;
  hint?: string;
  errors?: string[];
  value: T;
  onChange: (value: T) => void;
  format: (value: T) => string;
  parse: (text: string) => T;
  multiline?: boolean;
}

/**
 * A structured value (a list, a map) edited as text. The text is kept as typed, so a trailing comma or
 * an empty line survives until the next character; it is rewritten only when the value changes from
 * elsewhere (the JSON view).
 */
export function ParsedInput<T>({ label, hint, errors, value, onChange, format, parse, multiline }: Props<T>) {
  const [text, setText] = useState(() => format(value));
  const shown = format(value);
  useEffect(() => {
    if (format(parse(text)) !== shown) setText(shown);
    // Only an outside change of the value rewrites the text; `text` itself is what the user typed.
  }, [shown]);
  const change = (t: string) => {
    setText(t);
    onChange(parse(t));
  };
  const common = { label, value: text, ...(hint && { hint }), ...(errors && { errors }) };
  return multiline
    ? <TextAreaField {...common} rows={3} className="code" onChange={(e) => change(e.target.value)} />
    : <TextField {...common} onChange={(e) => change(e.target.value)} />;
}

export const listText = { format: (v: string[]) => v.join(', '), parse: (t: string) => t.split(',').map((s) => s.trim()).filter(Boolean) };

export const labelsText = {
  format: (v: Record<string, string>) => Object.entries(v).map(([k, x]) => `${k}=${x}`).join('\n'),
  parse: (t: string): Record<string, string> => Object.fromEntries(t.split('\n').flatMap((line) => {
    const at = line.indexOf('=');
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    return key === '' ? [] : [[key, at < 0 ? '' : line.slice(at + 1).trim()]];
  })),
};
