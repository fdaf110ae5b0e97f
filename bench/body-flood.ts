/**
 * A flood of large request bodies against one server started as `npm start` starts it (its Node flags):
 * `node bench/body-flood.ts [--store sqlite|postgres] [--connections 64] [--duration 15] [--server-env NAME=value]...`.
 *
 * Each connection posts ~1 MiB bodies to the ingest endpoint back to back, in turn: 1,000 new alerts through the
 * `alertmanager` preset (the most a body may hold, all kept until committed), one alert padded with an ignored
 * field, and an array of ~350,000 empty objects (the most objects per byte JSON can carry; refused 400 after
 * parsing). It reports the answers by status, the server's peak RSS and whether the process is still the same
 * one and healthy afterwards: the bound on bytes in flight is what keeps a heap cap safe.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  api, childEnv, cliJson, freshStore, HOST, log, machine, releaseAll, rssSampler, SERVER_NODE_FLAGS, startServer, stopServer, wholeNumber, type StoreKind,
} from './support.ts';

const MiB = 1024 * 1024;

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nUsage: node bench/body-flood.ts [--store sqlite|postgres] [--connections 64] [--duration 15] [--server-env NAME=value]...\n`);
  process.exit(2);
}

const { values: v } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    'server-env': { type: 'string', multiple: true },
  },
});
if (v.store !== 'sqlite' && v.store !== 'postgres') usage(`--store must be sqlite or postgres, got "${v.store}"`);
const kind: StoreKind = v.store;
const connections = wholeNumber(v.connections, 'connections', 64, usage);
const duration = wholeNumber(v.duration, 'duration', 15, usage);
const serverEnv = Object.fromEntries((v['server-env'] ?? []).map((kv) => {
  const i = kv.indexOf('=');
  if (i < 1) usage(`--server-env takes NAME=value, got "${kv}"`);
  return [kv.slice(0, i), kv.slice(i + 1)];
}));

/** Just under 1 MiB, the body limit. */
function padTo(make: (n: number) => string): string {
  let n = 1;
  while (Buffer.byteLength(make(n * 2)) < MiB) n *= 2;
  for (let step = n / 2; step >= 1; step /= 2) if (Buffer.byteLength(make(n + step)) < MiB) n += step;
  return make(n);
}

const labels = (i: number) => Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`label_${k}`, `value ${k} of alert ${i}`]));
const SHAPES: Record<string, (run: string) => string> = {
  '1,000 alerts (preset)': (run) => JSON.stringify({
    version: '4', status: 'firing', receiver: 'flood',
    alerts: Array.from({ length: 1000 }, (_, i) => ({ status: 'firing', labels: { alertname: `Flood ${run} ${i}`, ...labels(i) }, annotations: { summary: 's'.repeat(400) }, fingerprint: `${run}-${i}` })),
  }),
  'one padded alert': (run) => padTo((n) => JSON.stringify({ title: `flood ${run}`, severity: 'low', pad: 'x'.repeat(n) })),
  '~350k empty objects': () => padTo((n) => `[${'{},'.repeat(n)}{}]`),
};
const presetBody = SHAPES['1,000 alerts (preset)'] as (run: string) => string;
if (Buffer.byteLength(presetBody('000000')) > MiB) throw new Error('the preset body is over 1 MiB: trim its annotations');

const m = await machine();
const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
log(`commit ${m.revision}; ${m.cpus} CPUs; Node ${m.node}; load ${load}`);
const store = await freshStore(kind);
const env = { ...childEnv(store.databaseUrl), ...serverEnv };
const org = await cliJson<{ apiKey: string }>(['org', 'create', '--name', 'Flood', '--json'], env);
const server = await startServer(env, SERVER_NODE_FLAGS);
log(`server pid ${server.pid} port ${server.port}, flags ${SERVER_NODE_FLAGS.join(' ')}`);
try {
  const standard = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', org.apiKey, { name: 'Flood' });
  const preset = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', org.apiKey, { name: 'Flood AM', preset: 'alertmanager' });
  const counts = new Map<string, Map<string, number>>();
  const count = (shape: string, outcome: string) => {
    const byOutcome = counts.get(shape) ?? new Map<string, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    counts.set(shape, byOutcome);
  };
  const names = Object.keys(SHAPES);
  const rss = rssSampler(server.pid);
  const end = Date.now() + duration * 1000;
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    for (let i = c; Date.now() < end; i++) {
      const shape = names[i % names.length] as string;
      const token = shape.includes('preset') ? preset.data.token : standard.data.token;
      const body = (SHAPES[shape] as (run: string) => string)(randomBytes(4).toString('hex'));
      try {
        const res = await fetch(`http://${HOST}:${server.port}/api/inbound/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        count(shape, String(res.status));
      } catch (err) {
        count(shape, `error ${(err as Error).cause ? String((err as { cause: { code?: string } }).cause.code) : (err as Error).message}`);
      }
    }
  }));
  const peak = rss.stop();
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  const health = alive ? (await fetch(`http://${HOST}:${server.port}/healthz`)).status : 0;
  const outcomes = [...new Set([...counts.values()].flatMap((byOutcome) => [...byOutcome.keys()]))].sort();
  const lines = [
    `| body (~1 MiB) | ${outcomes.join(' | ')} |`,
    `|---|${outcomes.map(() => '---:').join('|')}|`,
    ...names.map((shape) => `| ${shape} | ${outcomes.map((o) => counts.get(shape)?.get(o) ?? 0).join(' | ')} |`),
  ];
  process.stdout.write(`\n${kind}, ${connections} connections × ${duration} s, flags ${SERVER_NODE_FLAGS.join(' ')}${Object.keys(serverEnv).length ? `, env ${Object.entries(serverEnv).map(([k, x]) => `${k}=${x}`).join(' ')}` : ''}; commit ${m.revision}, load at start ${load}\n\n${lines.join('\n')}\n\n`);
  process.stdout.write(`server peak RSS ${peak.toFixed(0)} MiB; process ${alive ? `still up (pid ${server.pid}), /healthz ${health}` : `ENDED (${server.child.exitCode ?? server.child.signalCode}); last lines:\n${server.tail.join('\n')}`}\n`);
  if (!alive || health !== 200) process.exitCode = 1;
} finally {
  await stopServer(server.child);
  await releaseAll();
}
