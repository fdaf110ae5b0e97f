/**
 * What one request's recurrence work budget costs, and whether a tenant's recurrences can stall the server:
 * `node bench/recurrence-budget.ts [--store sqlite|postgres] [--rounds 20]`.
 *
 * 1. In this process: for the most expensive shapes of rule and schedule (each spends the whole budget, or as
 *    much of it as it can), the median time of one evaluation, against a fixed reference loop timed in the same
 *    run (so a loaded machine shows as a larger reference, not as a slower budget).
 * 2. Against a real server (`npm start`'s Node flags): `/healthz` polled every 10 ms, first alone, then while a
 *    tenant sends `--rounds` of each heavy request (issue 25 row 1's rule to preview and create, the heaviest
 *    rule accepted, the heaviest schedule accepted, a list of its windows) one after another, and another
 *    organization ingests alerts. It reports the longest and 99th percentile `/healthz` answer and the other
 *    organization's ingest answers by status.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { WORK_UNITS_PER_REQUEST, WorkBudget, WorkLimitReached } from '../src/lib/work-budget.ts';
import { onCallAt, shiftsBetween, type OnCallSchedule } from '../src/modules/schedules/schedules-fns.ts';
import { occurrencesAfter } from '../src/modules/suppression/recurrence-fns.ts';
import { api, childEnv, cliJson, freshStore, HOST, log, machine, procTicks, releaseAll, SERVER_NODE_FLAGS, startServer, wholeNumber, type StoreKind } from './support.ts';

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nUsage: node bench/recurrence-budget.ts [--store sqlite|postgres] [--rounds 20]\n`);
  process.exit(2);
}
const { values: v } = parseArgs({ options: { store: { type: 'string', default: 'sqlite' }, rounds: { type: 'string' } } });
if (v.store !== 'sqlite' && v.store !== 'postgres') usage(`--store must be sqlite or postgres, got "${v.store}"`);
const kind: StoreKind = v.store;
const rounds = wholeNumber(v.rounds, 'rounds', 20, usage);

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const all = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => i + from).join(',');
const BOMB = `FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=${all(0, 23)};BYMINUTE=${all(0, 59)};BYSECOND=${all(0, 59)}`;
const wide = Array.from({ length: 12 }, (_, i) => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const, from: `${String(2 * i).padStart(2, '0')}:00`, to: `${String((2 * i + 2) % 24).padStart(2, '0')}:00` }));
const users = (n: number, same = false) => Array.from({ length: n }, (_, i) => (same ? 'usr_a' : `usr_${i}`));

// ---- 1. One budget, in this process ------------------------------------------------------------------------

const window = (recurrence: string, at: number) => (b: WorkBudget) => {
  occurrencesAfter({ startsAt: T0, endsAt: T0 + 1000, timezone: 'Europe/Berlin', recurrence }, at, 5, b);
};
const schedule = (layers: OnCallSchedule['layers'], overrides: OnCallSchedule['overrides'] = []): OnCallSchedule => ({ timezone: 'Europe/Berlin', layers, overrides });
const layers = (u: string[], restrictions: typeof wide | [], rotation: 'hourly' | 'daily' = 'hourly') =>
  Array.from({ length: 10 }, (_, i) => ({ name: `l${i}`, startsAt: T0 - 400 * DAY, rotation, shiftHours: null, users: u, restrictions: restrictions.map((r) => ({ ...r, days: [...r.days] })) }));
const upTo = (f: () => void) => {
  try {
    f();
  } catch (err) {
    if (!(err instanceof WorkLimitReached)) throw err;
  }
};
const SHAPES: Record<string, (b: WorkBudget) => void> = {
  'rule: row 1 (refused; stored before the check)': window(BOMB, T0 + 30_000),
  'rule: hourly, 1,800 times an hour, 400 days on': window(`FREQ=HOURLY;BYMINUTE=${all(0, 59)};BYSECOND=${all(0, 29)}`, T0 + 400 * DAY),
  'rule: daily, 1,440 times a day, 400 days on': window(`FREQ=DAILY;BYHOUR=${all(0, 23)};BYMINUTE=${all(0, 59)}`, T0 + 400 * DAY),
  'rule: daily on 29 Feb if Monday (never, here)': window('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', T0 + 400 * DAY),
  'rule: hourly on 29 Feb if Monday (never, here)': window('FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', T0 + 400 * DAY),
  'rule: weekly on Saturdays (a usual one)': window('FREQ=WEEKLY;BYDAY=SA', T0 + 400 * DAY),
  'schedule: 10 restricted layers of one person, who is on call': (b) => { onCallAt(schedule(layers(users(50, true), wide)), T0, b); },
  'schedule: 10 restricted layers + 200 overrides, 93 days': (b) => upTo(() => shiftsBetween(schedule(layers(users(50), wide), Array.from({ length: 200 }, (_, i) => ({ userId: 'usr_z', startsAt: T0 + i * 11 * 3_600_000, endsAt: T0 + i * 11 * 3_600_000 + 1000 }))), T0, T0 + 93 * DAY, b)),
  'schedule: 10 hourly layers of 50, 93 days': (b) => upTo(() => shiftsBetween(schedule(layers(users(50), [])), T0, T0 + 93 * DAY, b)),
};

const time = (f: () => void): number => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const reference = () => {
  let x = 0;
  for (let i = 0; i < 2_000_000; i++) x += Math.sqrt(i);
  return x;
};

const m = await machine();
log(`commit ${m.revision}; ${m.cpus} CPUs; Node ${m.node}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; budget ${WORK_UNITS_PER_REQUEST.toLocaleString('en')} units`);
for (let i = 0; i < 3; i++) reference();
const refMs = median(Array.from({ length: 7 }, () => time(reference)));
log(`reference loop (2 M square roots): ${refMs.toFixed(1)} ms`);
log('| shape | units spent | median ms | in reference loops |');
log('|---|---|---|---|');
for (const [name, f] of Object.entries(SHAPES)) {
  for (let i = 0; i < 2; i++) f(new WorkBudget());
  const runs = Array.from({ length: 7 }, () => {
    const b = new WorkBudget();
    return { ms: time(() => f(b)), spent: b.spent, exhausted: b.exhausted };
  });
  const ms = median(runs.map((r) => r.ms));
  const last = runs[runs.length - 1] as (typeof runs)[number];
  log(`| ${name} | ${last.spent.toLocaleString('en')}${last.exhausted ? ' (all it could)' : ''} | ${ms.toFixed(1)} | ${(ms / refMs).toFixed(2)} |`);
}

// ---- 2. A real server, /healthz polled while a tenant sends the heaviest requests ---------------------------

const store = await freshStore(kind);
const env = childEnv(store.databaseUrl);
const hostile = await cliJson<{ apiKey: string; owner: { id: string } }>(['org', 'create', '--name', 'Hostile', '--owner-email', 'h@hostile.test', '--json'], env);
const other = await cliJson<{ apiKey: string }>(['org', 'create', '--name', 'Other', '--json'], env);
const server = await startServer(env, SERVER_NODE_FLAGS);
const base = `http://${HOST}:${server.port}`;
try {
  const ingestUrl = (await api<{ data: { ingestUrl: string } }>(server, 'POST', '/api/v1/integrations', other.apiKey, { name: 'other' })).data.ingestUrl.replace(/^https?:\/\/[^/]+/, base);
  const now = Date.now();
  const iso = (t: number) => new Date(t).toISOString();
  const at = Math.floor((now - 60_000) / 1000) * 1000;
  // The heaviest hourly rule accepted: every minute, and as many seconds of each as the check lets through.
  const hour = at - (at % 3_600_000);
  let heavyWindow = { name: 'heavy', startsAt: iso(hour), endsAt: iso(hour + 1000), recurrence: '' };
  for (let seconds = 60; seconds > 0; seconds--) {
    heavyWindow = { ...heavyWindow, recurrence: `FREQ=HOURLY;BYMINUTE=${all(0, 59)};BYSECOND=${all(0, seconds - 1)}` };
    const r = await fetch(`${base}/api/v1/suppression`, { method: 'POST', headers: { authorization: `Bearer ${hostile.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(heavyWindow) });
    await r.arrayBuffer();
    if (r.ok) break;
  }
  log(`heaviest hourly rule accepted: ${heavyWindow.recurrence.replace(/=([\d,]+)/g, (_, list: string) => `=<${list.split(',').length} values>`)}`);
  const me = hostile.owner.id;
  // The heaviest schedule of this shape that is accepted: hourly shifts of one person, restricted to
  // windows that tile the day, in as many layers as the check lets through.
  const scheduleOf = (n: number) => ({
    name: 'heavy', timezone: 'Europe/Berlin',
    layers: Array.from({ length: n }, (_, i) => ({ name: `l${i}`, startsAt: iso(now - 400 * DAY), rotation: 'custom', shiftHours: 1, users: [me], restrictions: wide.map((r) => ({ ...r, days: [...r.days] })) })),
  });
  let heavySchedule = scheduleOf(10);
  let scheduleId: string | null = null;
  for (let n = 10; n > 0 && scheduleId === null; n--) {
    heavySchedule = scheduleOf(n);
    const r = await fetch(`${base}/api/v1/schedules`, { method: 'POST', headers: { authorization: `Bearer ${hostile.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(heavySchedule) });
    if (r.ok) scheduleId = ((await r.json()) as { data: { id: string } }).data.id;
    else await r.arrayBuffer();
  }
  log(`heaviest schedule accepted: ${heavySchedule.layers.length} layers of 1-hour shifts of one person, 12 restrictions each`);

  const send = (method: string, url: string, body?: unknown) => fetch(`${base}${url}`, {
    method, headers: { authorization: `Bearer ${hostile.apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }),
  }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });
  const bomb = { name: 'bomb', startsAt: iso(at), endsAt: iso(at + 1000), recurrence: BOMB };
  const heavy: Array<[string, () => Promise<number>]> = [
    ['row 1 rule, preview', () => send('POST', '/api/v1/suppression/preview', bomb)],
    ['row 1 rule, create', () => send('POST', '/api/v1/suppression', bomb)],
    ['heaviest rule, preview', () => send('POST', '/api/v1/suppression/preview', heavyWindow)],
    ['list of windows', () => send('GET', '/api/v1/suppression')],
    ['heaviest schedule, preview', () => send('POST', '/api/v1/schedules/preview', heavySchedule)],
    ...(scheduleId ? [
      ['heaviest schedule, 93 days of shifts', () => send('GET', `/api/v1/schedules/${scheduleId}/shifts?from=${iso(now)}&to=${iso(now + 93 * DAY)}`)],
      ['heaviest schedule, on call now', () => send('GET', `/api/v1/schedules/current-oncall?scheduleId=${scheduleId}`)],
    ] as Array<[string, () => Promise<number>]> : []),
    ['a plain GET /alerts, for comparison', () => send('GET', '/api/v1/alerts')],
  ];

  // The server's own CPU time per request (from /proc, in 10 ms ticks, over `rounds` requests one at a time):
  // what a request costs whatever else the machine runs, unlike a wall-clock time on a shared machine.
  const tickMs = 1000 / 100;
  log('| request (one at a time) | status | server CPU per request |');
  log('|---|---|---|');
  for (const [name, request] of heavy) {
    await request();
    const before = procTicks(server.pid);
    let status = 0;
    for (let i = 0; i < rounds; i++) status = await request();
    log(`| ${name} | ${status} | ${(((procTicks(server.pid) - before) * tickMs) / rounds).toFixed(1)} ms |`);
  }

  const poll = async (until: () => boolean): Promise<number[]> => {
    const out: number[] = [];
    while (!until()) {
      const t = performance.now();
      const r = await fetch(`${base}/healthz`);
      await r.arrayBuffer();
      out.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return out;
  };
  const summary = (xs: number[]) => `${xs.length} answers, p99 ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]?.toFixed(1)} ms, longest ${Math.max(...xs).toFixed(1)} ms`;

  let quietDone = false;
  const quietTimer = setTimeout(() => { quietDone = true; }, 3000);
  const quiet = await poll(() => quietDone);
  clearTimeout(quietTimer);
  log(`/healthz alone: ${summary(quiet)}`);

  const statuses = new Map<string, { n: number; longest: number }>();
  const timed = async (name: string, request: () => Promise<number>) => {
    const t = performance.now();
    const status = await request();
    const k = `${name} ${status}`;
    const seen = statuses.get(k) ?? { n: 0, longest: 0 };
    statuses.set(k, { n: seen.n + 1, longest: Math.max(seen.longest, performance.now() - t) });
  };
  let done = false;
  const attack = (async () => {
    for (let i = 0; i < rounds; i++) for (const [name, request] of heavy) await timed(name, request);
    done = true;
  })();
  const ingest = (async () => {
    const out = new Map<number, number>();
    let i = 0;
    while (!done) {
      const r = await fetch(ingestUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `other ${i++}`, severity: 'low' }) });
      await r.arrayBuffer();
      out.set(r.status, (out.get(r.status) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return out;
  })();
  const busy = await poll(() => done);
  await attack;
  log(`/healthz during ${rounds} rounds of the tenant's heaviest requests: ${summary(busy)}`);
  log(`the tenant's answers (status ×count, longest): ${[...statuses].map(([k, x]) => `${k} ×${x.n}, ${x.longest.toFixed(0)} ms`).join('; ')}`);
  log(`the other organization's ingest: ${[...(await ingest)].map(([s, n]) => `${s} ×${n}`).join(', ')}`);
} finally {
  await releaseAll();
}
