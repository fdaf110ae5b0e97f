import { once } from 'node:events';
import path from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';

/** A request to a worker thread, and its answer. */
type Request<Req> = { id: number; req: Req };
type Reply<Res> = { id: number; ok: true; value: Res } | { id: number; ok: false; error: unknown; props: Record<string, unknown> };

/**
 * A worker thread's script, next to `from` (the calling module's `import.meta.url`): `name.js` when the service
 * runs compiled, `name.ts` when it runs from its sources.
 */
export const sibling = (name: string, from: string): URL => new URL(`./${name}${path.extname(from)}`, from);

/**
 * A worker thread that answers requests (serveThread on its side), started with the first request and again after a
 * crash (whose requests fail). Errors come back with their own properties (an SMTP reply's `responseCode`, SQLite's
 * `errcode`), which structured cloning would drop. The thread keeps the process alive only while a request is in flight.
 */
export function threadClient<Req, Res>(script: URL, workerData: unknown) {
  let worker: Worker | null = null;
  const pending = new Map<number, { resolve: (value: Res) => void; reject: (e: unknown) => void }>();
  let next = 0;

  const start = (): Worker => {
    const w = new Worker(script, { workerData });
    w.on('message', (m: Reply<Res>) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (pending.size === 0) w.unref();
      if (m.ok) p?.resolve(m.value);
      else p?.reject(Object.assign(m.error as object, m.props));
    });
    const gone = (error: unknown) => {
      if (worker === w) worker = null;
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    w.on('error', gone);
    w.on('exit', (code) => gone(new Error(`the worker thread ${path.basename(script.pathname)} exited (${code})`)));
    w.unref();
    return w;
  };

  return {
    run: (req: Req): Promise<Res> => new Promise((resolve, reject) => {
      worker ??= start();
      // A request in flight keeps the process alive (an email a command sends before it exits), an idle thread does not.
      if (pending.size === 0) worker.ref();
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, req } satisfies Request<Req>);
    }),
    /** Lets the thread end (after its callers' last request was answered). */
    async close(): Promise<void> {
      const w = worker;
      worker = null;
      if (!w) return;
      const ended = once(w, 'exit');
      w.postMessage('close');
      await ended;
    },
  };
}

/** An error as it can cross to the other thread: an Error (a thrown value of another kind becomes one), and its own plain properties. */
function failure(id: number, error: unknown): Reply<never> {
  const props = Object.fromEntries(Object.entries(error !== null && typeof error === 'object' ? error : {})
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
  return { id, ok: false, error: error instanceof Error ? error : new Error(String(error)), props };
}

/** The thread's side of threadClient: answers each request with `handle`; `close` frees what it holds before the thread ends. */
export function serveThread<Req, Res>(handle: (req: Req) => Promise<Res>, close: () => void): void {
  const port = parentPort;
  if (!port) throw new Error('serveThread runs in a worker thread');
  port.on('message', async (m: Request<Req> | 'close') => {
    if (m === 'close') {
      close();
      port.close();
      return;
    }
    try {
      port.postMessage({ id: m.id, ok: true, value: await handle(m.req) } satisfies Reply<Res>);
    } catch (error) {
      // Failed, or its answer could not be cloned: either way the caller must hear back.
      port.postMessage(failure(m.id, error));
    }
  });
}
