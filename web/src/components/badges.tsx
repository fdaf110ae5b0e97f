/** Severity and status as words with a colour cue (the word carries the meaning, not the colour). */
export function SeverityBadge({ value }: { value: string }) {
  return <span className={`badge sev-${value}`}>{value}</span>;
}

export function StatusBadge({ value }: { value: string }) {
  return <span className={`badge status-${value}`}>{value}</span>;
}

/** An alert whose fingerprint flaps (docs/paging.md, "Flapping alerts"): its changes do not page. */
export function FlappingBadge() {
  return <span className="badge flapping" title="Fires and resolves over and over: its changes do not page until it is stable">flapping</span>;
}
