import type { Logger } from 'pino';
import { errorSummary } from './logger.ts';

/** Runs `task` every `everyMs`, never two at once, logging a failure as `failure`; `stop` waits for a run under way. */
export function periodic(everyMs: number, task: () => Promise<unknown>, log: Logger, failure: string): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .then(() => undefined, (err: unknown) => log.error({ error: errorSummary(err) }, failure))
      .finally(() => { running = null; });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
