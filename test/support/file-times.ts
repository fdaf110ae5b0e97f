/**
 * A test reporter that writes one line per test file, its wall-clock time and its path, slowest first, once the
 * run ends: `node --test --test-reporter=./test/support/file-times.ts --test-reporter-destination=…`. A file's
 * time runs from the runner taking it off its queue (its process starting) to the file's own completion, so
 * start-up and waiting on child processes are in it, as a reader of the run's length needs them.
 */
interface RunnerEvent {
  type: string;
  data: { file?: string; name?: string; nesting?: number; duration_ms?: number; counts?: { tests: number } };
}

export default async function* fileTimes(source: AsyncIterable<RunnerEvent>): AsyncGenerator<string> {
  const files = new Map<string, { start: number; end: number; tests: number }>();
  let total = 0;
  for await (const { type, data } of source) {
    if (type === 'test:summary') {
      if (data.file === undefined) total = data.duration_ms ?? 0;
      else {
        const f = files.get(data.file);
        if (f) f.tests = data.counts?.tests ?? 0;
      }
      continue;
    }
    // The file itself is the test at nesting 0 whose name is the path it was given by.
    if (data.file === undefined || data.nesting !== 0 || data.name === undefined || !data.file.endsWith(data.name)) continue;
    if (type === 'test:dequeue' && !files.has(data.file)) files.set(data.file, { start: performance.now(), end: 0, tests: 0 });
    const f = files.get(data.file);
    if (type === 'test:complete' && f) f.end = performance.now();
  }
  const root = `${process.cwd()}/`;
  const rows = [...files].map(([file, f]) => ({ file: file.replace(root, ''), ms: f.end - f.start, tests: f.tests })).sort((a, b) => b.ms - a.ms);
  for (const r of rows) yield `${(r.ms / 1000).toFixed(1).padStart(7)} s  ${String(r.tests).padStart(4)} tests  ${r.file}\n`;
  yield `${(total / 1000).toFixed(1).padStart(7)} s  ${rows.length} files in all\n`;
}
