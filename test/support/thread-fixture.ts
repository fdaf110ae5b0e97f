/** A worker thread for test/unit/thread.test.ts: echoes, fails as told (an SMTP-like reply code on the error), or dies. */
import { serveThread } from '../../src/lib/thread.ts';

serveThread(async (r: { echo?: string; fail?: string; exit?: boolean; wait?: number }) => {
  if (r.exit) process.exit(3);
  if (r.wait) await new Promise((resolve) => setTimeout(resolve, r.wait));
  if (r.fail) throw Object.assign(new Error(r.fail), { code: 'EENVELOPE', responseCode: 550, socket: { toString: () => 'not cloneable' } });
  return { echo: r.echo };
}, () => undefined);
