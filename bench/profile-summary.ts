/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`): self time by function (name + file:line) and by area
 * (our code, each npm package, Node internals, native/GC).
 *
 *   npx node bench/profile-summary.ts /tmp/prof            # every .cpuprofile in the folder, merged
 *   npx node bench/profile-summary.ts a.cpuprofile --top 40
 *   npx node bench/profile-summary.ts /tmp/prof --last 8   # only the last 8 s of each profile (the measured run)
 *
 * A profile made with `npm run bench -- --cpu-prof DIR` also covers start-up and warm-up; with a run of a
 * few seconds or more those are a small share.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, callers: { type: 'string' }, last: { type: 'string' } } });
const top = Number(values.top ?? 30);
const lastUs = values.last === undefined ? undefined : Number(values.last) * 1e6;
if (positionals.length === 0) {
  process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile | dir>... [--top N]\n');
  process.exit(2);
}

const files = positionals.flatMap((p) => statSync(p).isDirectory()
  ? readdirSync(p).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(p, f))
  : [p]);

const root = process.cwd();
function area(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native / V8 builtins)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm: ${nm[1]}`;
  if (url.startsWith('node:')) return 'node: internals';
  const file = url.replace(/^file:\/\//, '');
  if (file.startsWith(root)) return `app: ${path.dirname(path.relative(root, file))}`;
  return url;
}
function where(url: string, line: number): string {
  if (url === '') return '';
  const file = url.replace(/^file:\/\//, '');
  const short = file.startsWith(root) ? path.relative(root, file) : file.replace(/.*node_modules\//, '');
  return `${short}:${line + 1}`;
}

/** With --callers NAME: self time of NAME split by its call path (the nearest frames outside NAME's file). */
const callers = values.callers;
const byCaller = new Map<string, number>();
const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const pathOf = (id: number): string => {
    const frames: string[] = [];
    for (let p = parent.get(id); p !== undefined && frames.length < 5; p = parent.get(p)) {
      const f = (nodes.get(p) as ProfileNode).callFrame;
      if (f.url.includes('node_modules/kysely/dist/query-executor') || f.url.includes('node_modules/kysely/dist/driver') || f.url.includes('sqlite-database.ts')) continue;
      frames.push(`${f.functionName || '(anonymous)'} ${where(f.url, f.lineNumber)}`);
    }
    return frames.join(' ← ');
  };
  // --last: only the final seconds of each profile (a bench's measured run comes last; seeding and warm-up first).
  const elapsed = profile.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (lastUs !== undefined && at < elapsed - lastUs) return;
    const node = nodes.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const key = `${name}  ${where(url, lineNumber)}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + dt);
    if (callers !== undefined && name === callers) {
      const k = pathOf(id);
      byCaller.set(k, (byCaller.get(k) ?? 0) + dt);
    }
    const a = area(url, name);
    byArea.set(a, (byArea.get(a) ?? 0) + dt);
    total += dt;
  });
}

const ms = (us: number) => (us / 1000).toFixed(0);
const pct = (us: number) => ((100 * us) / total).toFixed(1);
const idle = byFunction.get('(idle)') ?? 0;
process.stdout.write(`${files.length} profile(s), ${ms(total)} ms sampled, ${ms(total - idle)} ms busy (${pct(total - idle)}%)\n\n`);
process.stdout.write('## Self time by area\n\n| area | self ms | % of samples |\n|---|---:|---:|\n');
for (const [k, v] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`| ${k} | ${ms(v)} | ${pct(v)} |\n`);
process.stdout.write(`\n## Top ${top} functions by self time\n\n| function | self ms | % of samples |\n|---|---:|---:|\n`);
for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`| \`${k}\` | ${ms(v)} | ${pct(v)} |\n`);
if (callers !== undefined) {
  process.stdout.write(`\n## Self time of ${callers} by caller\n\n| call path (nearest first) | self ms | % of samples |\n|---|---:|---:|\n`);
  for (const [k, v] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`| ${k} | ${ms(v)} | ${pct(v)} |\n`);
}
