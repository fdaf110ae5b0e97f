/** Severity and status as words with a colour cue (the word carries the meaning, not the colour). */
export function SeverityBadge({ value }: { value: string }) {
  return <span className={`badge sev-${value}`}>{value}</span>;
}

export function StatusBadge({ value }: { value: string }) {
  return <span className={`badge status-${value}`}>{value}</span>;
}
