/** Preformatted text (payloads, commands) as text; focusable, so a keyboard can scroll it when it overflows. */
export function CodeBlock({ label, text, testId }: { label: string; text: string; testId?: string }) {
  return <pre className="code" tabIndex={0} aria-label={label} data-testid={testId}>{text}</pre>;
}
