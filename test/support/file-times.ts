/**
 * A test reporter that writes one line per test file, its duration in seconds and its path, slowest first,
 * once the run ends: `node --test --test-reporter=./test/support/file-times.ts --test-reporter-destination=…`.
 * A file's time runs from the first event naming it (the runner queueing it) to its summary: wall-clock time,
 * start-up and waiting on child processes included, as a reader of the run's length needs it.
 */
interface RunnerEvent {
  type: string;
  data: { file?: string; duration_ms?: number; counts?: { tests: number } };
}

export default async function* fileTimes(source: AsyncIterable<RunnerEvent>): AsyncGenerator<string> {
  const started = new Map<string, number>();
  const files: Array<{ file: string; ms: number; tests: number }> = [];
  let total = 0;
  for await (const event of source) {
    const { file } = event.data;
    if (file !== undefined && !started.has(file)) started.set(file, performance.now());
    if (event.type !== 'test:summary') continue;
    if (file !== undefined) files.push({ file, ms: performance.now() - (started.get(file) as number), tests: event.data.counts?.tests ?? 0 });
    else total = event.data.duration_ms ?? 0;
  }
  files.sort((a, b) => b.ms - a.ms);
  const root = process.cwd() + '/';
  for (const f of files) yield `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${String(f.tests).padStart(4)} tests  ${f.file.replace(root, '')}\n`;
  yield `${(total / 1000).toFixed(1).padStart(7)} s  ${files.length} files in all\n`;
}
