export type Cell = string | number | null;

/**
 * One CSV field: quoted when it holds a separator, quote or line break. A text starting with = + - @ (or a tab
 * or carriage return) is prefixed with ' so that a spreadsheet shows it instead of running it as a formula: alert
 * titles are written by senders (OWASP, "CSV injection").
 */
export function csvField(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const toCsv = (rows: readonly (readonly Cell[])[]): string => rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';

/** Offers `rows` as a CSV file download. */
export function downloadCsv(filename: string, rows: readonly (readonly Cell[])[]): void {
  const url = URL.createObjectURL(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
