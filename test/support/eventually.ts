import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` until it returns a value (anything but undefined), or fails after `timeoutMs`: for effects of
 * background work (workflow runs, deliveries), a bounded wait, not an assertion on timing.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
