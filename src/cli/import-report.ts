import type { ImportResult, PlanItem } from '../modules/imports/imports-model.ts';

/** Names and ids come from the other tool: control characters (a terminal's escape sequences) are shown as `?`. */
const plain = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** `alertflow import`'s text output: what is (or would be) created, updated and skipped, and the counts. */
export function importReport(r: ImportResult): string {
  const lines: string[] = [];
  const item = (i: PlanItem) => `  ${i.kind.padEnd(19)} ${plain(i.sourceId).padEnd(14)} ${plain(i.name)}${i.id && !i.id.startsWith('(new ') ? `  → ${i.id}` : ''}`;
  const section = (title: string, items: PlanItem[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const i of items) {
      lines.push(item(i));
      for (const [k, v] of Object.entries(i.credentials ?? {})) lines.push(`      ${k}: ${v}`);
    }
  };
  lines.push(r.applied ? `Import from ${r.system}: applied.` : `Import from ${r.system}: plan only, nothing was changed (add --apply to import).`);
  section(r.applied ? 'Created' : 'Would create', r.create);
  section(r.applied ? 'Updated' : 'Would update', r.update);
  if (r.skip.length > 0) {
    lines.push(`Not carried over (${r.skip.length}):`);
    for (const s of r.skip) lines.push(`  ${s.kind.padEnd(19)} ${plain(s.sourceId).padEnd(14)} ${plain(s.name)}: ${plain(s.reason)}`);
  }
  const verb = r.applied ? ['created', 'updated'] : ['to create', 'to update'];
  lines.push(`${r.create.length} ${verb[0]}, ${r.update.length} ${verb[1]}, ${r.skip.length} not carried over, ${r.unchanged.length} unchanged.`);
  return lines.join('\n');
}
