/**
 * What one new alert's insert costs on SQLite, with and without the indexes and triggers on `alerts`:
 * `npx node bench/insert-cost.ts [--rounds 3] [--preload 20000] [--inserts 20000]`.
 *
 * Each variant gets a fresh scratch file at the latest migration, `--preload` alerts, then `--inserts` upserts
 * through ingest's own prepared statement in transactions of 40 (a group-commit batch), with random fingerprints
 * as Alertmanager sends them. Prints the process CPU per insert, best of the interleaved rounds.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openMigratedStore } from '../src/db/migrations/index.ts';
import { newId, orderedId } from '../src/lib/ids.ts';
import type { AlertRow } from '../src/modules/alerts/alerts-repo.ts';
import { sqliteStatements } from '../src/modules/ingest/ingest-repo.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, preload: { type: 'string' }, inserts: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 3);
const PRELOAD = Number(values.preload ?? 20_000);
const INSERTS = Number(values.inserts ?? 20_000);
const BATCH = 40;

interface Variant {
  sql: string[];
  randomIds?: boolean;
}
const VARIANTS: Record<string, Variant> = {
  'as before migration 0017 (alerts_org_fingerprint, random ids)': {
    sql: ['drop index alerts_closed_fingerprint', 'create index alerts_org_fingerprint on alerts (org_id, fingerprint)'], randomIds: true,
  },
  'current schema, time-ordered ids': { sql: [] },
  'current, without the count insert trigger': { sql: ['drop trigger alerts_count_insert'] },
  'current, without the event insert trigger': { sql: ['drop trigger alerts_event_insert'] },
  'current, without alerts_org_status_created': { sql: ['drop index alerts_org_status_created'] },
  'current, incident and client indexes partial': {
    sql: ['drop index alerts_incident', 'create index alerts_incident on alerts (incident_id) where incident_id is not null',
      'drop index alerts_org_client_created', 'create index alerts_org_client_created on alerts (org_id, client_id, created_at, id) where client_id is not null'],
  },
};

const payload = JSON.stringify({ title: 'HighLatency on web-1:9100', labels: { service: 'api', env: 'prod' }, annotations: { summary: 'p99 above 1 s' } });
const row = (now: number, randomIds: boolean): AlertRow => ({
  id: randomIds ? newId('alt') : orderedId('alt', now), org_id: 'org_bench', integration_id: 'int_bench', client_id: null, incident_id: null,
  fingerprint: randomBytes(8).toString('hex'), title: 'HighLatency on web-1:9100', severity: 'critical', status: 'firing', source: 'prometheus',
  description: null, labels: '{"service":"api","env":"prod"}', annotations: '{"summary":"p99 above 1 s"}', payload, occurrences: 1,
  last_seen_at: now, acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null, resolved_at: null, resolved_by_type: null,
  resolved_by_id: null, suppression_id: null, created_at: now, updated_at: now,
});

const best = new Map<string, number>();
let files = 0;
const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-insert-cost-'));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const file = path.join(dir, `${files++}.db`);
      const { store } = await openMigratedStore({ kind: 'sqlite', file });
      const raw = store.sqlite?.raw;
      if (!raw) throw new Error('not a SQLite store');
      raw.exec(`insert into orgs (id, name, created_at) values ('org_bench', 'bench', 0)`);
      for (const s of variant.sql) raw.exec(s);
      const st = sqliteStatements(raw);
      const randomIds = variant.randomIds === true;
      raw.exec('begin');
      for (let i = 0; i < PRELOAD; i++) st.upsert(row(Date.now(), randomIds), 'firing');
      raw.exec('commit');
      const before = process.cpuUsage();
      for (let done = 0; done < INSERTS; done += BATCH) {
        raw.exec('begin immediate');
        for (let i = 0; i < BATCH; i++) st.upsert(row(Date.now(), randomIds), 'firing');
        raw.exec('commit');
      }
      const used = process.cpuUsage(before);
      const ms = (used.user + used.system) / 1000 / INSERTS;
      best.set(name, Math.min(best.get(name) ?? Infinity, ms));
      await store.close();
      rmSync(file, { force: true });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}`);
for (const [name, ms] of best) console.log(`${name.padEnd(64)} ${ms.toFixed(4)} ms CPU per insert`);
