/**
 * Escalation timing: `npm run bench:escalation`. On each store, a real server (`serve`, default job settings,
 * ESCALATION_MINUTE_MS=1000 so a policy "minute" is a second) receives one payload of 1,000 alerts; a workflow
 * opens an incident per alert and starts a two-step policy for each (step 1 at once, step 2 five "minutes" = 5 s
 * later; each step posts a webhook to a local receiver). Nobody acknowledges. Printed: how late each step fired
 * after it was due (step 1: after its escalation started; step 2: five seconds after step 1 fired), p50, p99 and
 * max, from the database's own records (`escalations.started_at`, `escalation_steps.fired_at`).
 */
import { createStore } from '../src/db/database.ts';
import { eventually } from '../test/support/eventually.ts';
import { createIntegration, createOrg, startServer, stopAll } from '../test/support/process.ts';
import { startHttpSink } from '../test/support/sinks.ts';
import { createTestStore, STORE_KINDS } from '../test/support/stores.ts';

const INCIDENTS = Number(process.env.BENCH_INCIDENTS ?? 1000);
const MINUTE_MS = 1000;
const STEP_DELAY = 5;

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const summary = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${pct(s, 50)} ms, p99 ${pct(s, 99)} ms, max ${s[s.length - 1]} ms (n=${s.length})`;
};

for (const kind of STORE_KINDS) {
  const t = await createTestStore(kind);
  const web = await startHttpSink();
  const server = await startServer({ DATABASE_URL: t.url, OUTBOUND_ALLOW: '127.0.0.1/32', ESCALATION_MINUTE_MS: String(MINUTE_MS) }, { timeoutMs: 90_000 });
  const store = await createStore(t.config);
  try {
    const org = await createOrg(t.url);
    const key = org.apiKey;
    const call = async (method: string, path: string, body: unknown) => {
      const r = await server.request(method, path, { key, body });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.raw}`);
      return r.body;
    };
    const integ = await createIntegration(server, key);
    await call('PATCH', `/api/v1/integrations/${integ.id}`, { mapping: { itemsPath: 'items' } });
    const hook = (n: number) => ({ type: 'channel', channel: 'webhook', target: { url: `${web.base}/step${n}` } });
    const policy = await call('POST', '/api/v1/escalation-policies', { name: 'Bench', steps: [{ delayMinutes: STEP_DELAY, targets: [hook(1)] }, { delayMinutes: 0, targets: [hook(2)] }] });
    await call('POST', '/api/v1/workflows', {
      name: 'Escalate', trigger: 'alert.created',
      actions: [{ type: 'create_incident', groupBy: ['labels.n'] }, { type: 'escalate', policyId: policy.data.id }],
    });
    const items = Array.from({ length: INCIDENTS }, (_, i) => ({ title: `Bench alert ${i}`, severity: 'high', labels: { n: String(i) } }));
    const started = Date.now();
    const r = await server.request('POST', integ.path, { body: { items } });
    if (r.status !== 200) throw new Error(`ingest: ${r.status} ${r.raw}`);
    await eventually('every step fired', async () => {
      const n = Number((await store.db.selectFrom('escalation_steps').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      return n >= 2 * INCIDENTS ? true : undefined;
    }, 600_000, 500);
    const wall = Date.now() - started;
    const rows = await store.db.selectFrom('escalations').innerJoin('escalation_steps', 'escalation_steps.escalation_id', 'escalations.id')
      .select(['escalations.id', 'escalations.started_at', 'escalation_steps.step', 'escalation_steps.fired_at']).execute();
    const byId = new Map<string, { start: number; s1?: number; s2?: number }>();
    for (const row of rows) {
      const e = byId.get(row.id) ?? { start: Number(row.started_at) };
      if (Number(row.step) === 1) e.s1 = Number(row.fired_at);
      else e.s2 = Number(row.fired_at);
      byId.set(row.id, e);
    }
    const e = [...byId.values()];
    const starts = e.map((x) => x.start);
    const step1 = e.map((x) => (x.s1 as number) - x.start);
    const step2 = e.map((x) => (x.s2 as number) - (x.s1 as number) - STEP_DELAY * MINUTE_MS);
    await eventually('every page delivered', () => (web.hits.length >= 2 * INCIDENTS ? true : undefined), 300_000, 500);
    console.log(`${kind}: ${e.length} escalations started within ${Math.max(...starts) - Math.min(...starts)} ms; ` +
      `step 1 late by ${summary(step1)}; step 2 late by ${summary(step2)}; ${web.hits.length} webhook pages; all steps fired ${wall} ms after the ingest request`);
  } finally {
    await store.close();
    await stopAll([server]);
    await web.close();
    await t.drop();
  }
}
