/**
 * CPU per REST request, in process, on a busy machine: `npx node bench/request-cost.ts [--store sqlite|postgres]
 * [--seed 100000] [--calls 3000] [--rounds 3]`.
 *
 * The app (container and Fastify, workers off) on a fresh store seeded with `--seed` alerts, then
 * `app.inject` of each request below `--calls` times per round; prints the process CPU per request, best round.
 * No sockets: this is the work of our code and Fastify's, which a wrk run on a shared 2-core machine hides in
 * its noise. Compare two commits by running it on both, alternated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { buildApp } from '../src/http/app.ts';
import { freshStore, releaseAll } from './support.ts';

const { values } = parseArgs({ options: { store: { type: 'string' }, seed: { type: 'string' }, calls: { type: 'string' }, rounds: { type: 'string' } } });
const kind = (values.store ?? 'sqlite') as 'sqlite' | 'postgres';
const SEED = Number(values.seed ?? 100_000);
const CALLS = Number(values.calls ?? 3000);
const ROUNDS = Number(values.rounds ?? 3);

const store = await freshStore(kind);
const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-request-cost-'));
const log = pino({ level: 'silent' });
const config = { ...loadConfig({ ALERTFLOW_ENV: 'test', BASE_URL: 'http://alertflow.test', DATA_DIR: dir, RATE_LIMIT_API_PER_MINUTE: '10000000', RATE_LIMIT_INGEST_PER_MINUTE: '10000000' }), store: store.config };
const c = await createContainer(config, { log, workers: false });
const app = await buildApp(c, log);
await app.ready();
try {
  const org = await c.orgs.create({ name: 'Bench', ownerEmail: 'owner@bench.test' });
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const integration = await app.inject({ method: 'POST', url: '/api/v1/integrations', headers: auth, payload: { name: 'bench', preset: 'alertmanager' } });
  const token = (JSON.parse(integration.body) as { data: { token: string } }).data.token;
  // Seeded through ingest itself: Alertmanager webhook bodies of 500 alerts.
  for (let i = 0; i < SEED; i += 500) {
    const alerts = Array.from({ length: Math.min(500, SEED - i) }, (_, j) => ({
      status: 'firing', labels: { alertname: 'HighLatency', instance: `web-${(i + j) % 50}:9100`, severity: 'warning' },
      annotations: { summary: `Seeded alert ${i + j}` }, startsAt: '2026-11-21T09:58:00.000Z', fingerprint: `seed-${i + j}`,
    }));
    const r = await app.inject({ method: 'POST', url: `/api/inbound/webhook/${token}`, payload: { version: '4', status: 'firing', alerts } });
    if (r.statusCode !== 200) throw new Error(`seeding: ${r.statusCode} ${r.body}`);
  }
  const requests: Record<string, string> = {
    'GET /alerts (first page of 25)': '/api/v1/alerts',
    'GET /alerts?status=firing,acknowledged': '/api/v1/alerts?status=firing,acknowledged',
    'GET /alerts?limit=1': '/api/v1/alerts?limit=1',
    'GET /integrations': '/api/v1/integrations',
  };
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of Object.entries(requests)) {
      for (let i = 0; i < 200; i++) await app.inject({ method: 'GET', url, headers: auth });
      await new Promise((resolve) => setImmediate(resolve));
      const t = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) {
        const r = await app.inject({ method: 'GET', url, headers: auth });
        if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
        // A turn of the event loop per request, as a server's socket I/O gives: inject's null socket finishes each
        // write in a setImmediate, and a loop of synchronous SQLite requests that never yields kept every finished
        // request and response alive (~10 KB each) until the round ended, which the GC then paid for.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const d = process.cpuUsage(t);
      const ms = (d.user + d.system) / CALLS / 1000;
      best.set(name, Math.min(best.get(name) ?? Infinity, ms));
    }
  }
  process.stdout.write(`${kind}, ${SEED} alerts, ${CALLS} calls × ${ROUNDS} rounds, load1 ${os.loadavg()[0]?.toFixed(1)}\n| request | CPU per request (best round) |\n|---|---:|\n`);
  for (const [name, ms] of best) process.stdout.write(`| ${name} | ${ms.toFixed(3)} ms |\n`);
} finally {
  await app.close();
  await c.close();
  rmSync(dir, { recursive: true, force: true });
  await store.release();
  await releaseAll();
}
