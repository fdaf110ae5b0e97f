import { Worker } from 'node:worker_threads';

/**
 * The bound for a "linear time" check: a linear evaluation of its 50–100 k characters takes well under a second
 * even on a loaded machine, while a catastrophic backtrack on them would not end in a lifetime.
 */
export const LINEAR_BOUND_MS = 20_000;

/** `[module URL, export name]`: what the function run by `within` gets, by name. */
export type Imports = Record<string, readonly [URL, string]>;

const RUNNER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const deps = {};
  for (const [name, [url, exported]] of Object.entries(workerData.imports)) deps[name] = (await import(url))[exported];
  const fn = (0, eval)('(' + workerData.fn + ')');
  parentPort.postMessage(fn(deps, ...workerData.args));
})().catch((err) => parentPort.postMessage({ __error: String(err && err.stack || err) }));
`;

/**
 * Runs `fn(imports, ...args)` on a worker thread and resolves with what it returns, or fails once `ms` passed and
 * ends the thread. For the "linear time" checks: a call that backtracks catastrophically never gives its thread
 * back, so no timer on the test's own thread (nor the runner's --test-timeout) could end it; here it fails in
 * `ms` instead of hanging the suite. `fn` is sent as source: it may use only its parameters, and what it returns
 * must be cloneable.
 */
export function within<A extends unknown[], R>(ms: number, imports: Imports, fn: (deps: any, ...args: A) => R, ...args: A): Promise<R> {
  const worker = new Worker(RUNNER, {
    eval: true,
    workerData: { imports: Object.fromEntries(Object.entries(imports).map(([k, [url, name]]) => [k, [url.href, name]])), fn: fn.toString(), args },
  });
  return new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`did not return within ${ms} ms: not linear time`));
    }, ms);
    worker.once('message', (m: unknown) => {
      clearTimeout(timer);
      void worker.terminate();
      if (m !== null && typeof m === 'object' && '__error' in m) reject(new Error(String((m as { __error: unknown }).__error)));
      else resolve(m as R);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
