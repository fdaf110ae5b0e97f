/**
 * Fairness and stalls: `npm run bench:fairness`. Runs the two system tests that measure them, on both stores,
 * with real processes, and prints their figures:
 * - test/system/fairness.test.ts: organization A has 4,000 webhook deliveries to a loopback host that accepts
 *   connections and never answers (WEBHOOK_TIMEOUT_SECONDS=2); organization B's alert is sent twice (right after
 *   A's payloads, and 8 s later), and the time from B's ingest request to both its webhook and its email arriving
 *   is printed, with the number of connections the dead host received;
 * - test/system/stalls.test.ts: one 1,000-alert payload (`itemsPath`) in an organization with a `create_incident`
 *   workflow while `/healthz` is asked every 10 ms; the longest answer is printed (an event-loop stall shows as a
 *   late answer).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = ['test/system/fairness.test.ts', 'test/system/stalls.test.ts'];
const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...files], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
child.on('close', (code) => {
  const figures = out.split('\n').filter((l) => /^# (sqlite|postgres):/.test(l.trim())).map((l) => l.trim().slice(2));
  const failed = out.split('\n').filter((l) => /^\s*✖|^not ok/.test(l));
  process.stdout.write(`${figures.join('\n')}\n${failed.length > 0 ? `\nfailed:\n${failed.join('\n')}\n` : ''}`);
  process.exitCode = code ?? 1;
});
