import { flapStarted } from '../analytics/analytics-fns.ts';
import type { Dialect } from '../../db/database.ts';
import type { Effects } from './alert-effects-fns.ts';
import { DEFAULT_FLAP_RULE, flapStep, type FlapRule, type FlapState } from './flap-fns.ts';

/**
 * The alert writer's flap bookkeeping (flap-fns.ts holds the rule): the (integration, fingerprint) states of a
 * batch's changes that count are locked and read, stepped change by change, and written back; the alerts
 * written while their fingerprint flaps are marked; a start adds the `alert.flapping` outbox event (its notice)
 * and the `flaps` count to the batch's effects, which the writer stores next in the same transaction. Written
 * once as a generator of statements, so that SQLite's synchronous prepared statements and the asynchronous
 * paths run the same steps.
 */

/** One statement: a name (PostgreSQL's prepared statement), its text and its parameters. */
export type FlapQuery = readonly [name: string, text: string, params: unknown[]];
type Row = Record<string, unknown>;

/**
 * The statements, each for a whole batch (a group commit of hundreds of new alerts costs four statements, not four
 * per alert): the rows go in as one JSON array parameter, unnested by the dialect's JSON function.
 */
export function flapSql(dialect: Dialect, p: (i: number) => string) {
  const pg = dialect === 'postgres';
  /** Each element of the JSON array parameter `i` as `e`, and its field `n` as text. */
  const each = (i: number) => (pg ? `jsonb_array_elements(${p(i)}::jsonb) e` : `json_each(${p(i)}) e`);
  const at = (n: number, type = '') => (pg ? `(e->>${n})${type}` : `(e.value->>${n})`);
  const texts = (i: number) => (pg ? `select jsonb_array_elements_text(${p(i)}::jsonb)` : `select value from json_each(${p(i)})`);
  return {
    // Inserted when missing, and locked either way (an upsert that changes nothing still takes the row's lock).
    // SQLite needs the WHERE to tell an upsert's ON CONFLICT from a join's ON.
    lock: `insert into alert_flaps (org_id, integration_id, fingerprint, changes, flapping, since, last_change_at)
      select ${at(0)}, ${at(1)}, ${at(2)}, '[]', 0, null, 0 from ${each(1)} where true
      on conflict (org_id, integration_id, fingerprint) do update set last_change_at = alert_flaps.last_change_at
      returning org_id, integration_id, fingerprint, changes, flapping, since, last_change_at`,
    // The states of fingerprints that only open in the batch: most are new, have none, and cost nothing more.
    read: `select f.org_id, f.integration_id, f.fingerprint, f.changes, f.flapping, f.since, f.last_change_at
      from ${each(1)} join alert_flaps f on f.org_id = ${at(0)} and f.integration_id = ${at(1)} and f.fingerprint = ${at(2)}${pg ? ' for update of f' : ''}`,
    rules: `select id, org_id, flap_threshold, flap_window_seconds, flap_stable_seconds from integrations where id in (${texts(1)})`,
    write: `update alert_flaps set changes = ${at(3)}, flapping = ${at(4, '::integer')}, since = ${at(5, '::bigint')}, last_change_at = ${at(6, '::bigint')}
      from ${each(1)} where alert_flaps.org_id = ${at(0)} and alert_flaps.integration_id = ${at(1)} and alert_flaps.fingerprint = ${at(2)}`,
    mark: `update alerts set flapping = 1 where id in (${texts(1)})`,
  };
}
export type FlapSql = ReturnType<typeof flapSql>;

/** An integration's rule as stored (seconds), in milliseconds. */
export const ruleOf = (r: Row | undefined): FlapRule => ({
  threshold: Number(r?.flap_threshold ?? DEFAULT_FLAP_RULE.threshold),
  windowMs: Number(r?.flap_window_seconds ?? DEFAULT_FLAP_RULE.windowSeconds) * 1000,
  stableMs: Number(r?.flap_stable_seconds ?? DEFAULT_FLAP_RULE.stableSeconds) * 1000,
});

/** A stored `alert_flaps` row as the rule reads it (`changes`: JSON text on either store). */
export const flapStateOf = (r: Row): FlapState => ({
  changes: JSON.parse(String(r.changes)) as number[], flapping: Number(r.flapping) === 1,
  since: r.since === null || r.since === undefined ? null : Number(r.since), lastChangeAt: Number(r.last_change_at),
});

const keyOf = (orgId: unknown, integrationId: unknown, fingerprint: unknown) => `${orgId}\u0000${integrationId}\u0000${fingerprint}`;

function* flapWrites(text: FlapSql, fx: Effects): Generator<FlapQuery, void, Row[]> {
  const changes = fx.flaps;
  fx.flaps = [];
  const keyed = new Map(changes.map((a) => [keyOf(a.org_id, a.integration_id, a.fingerprint), [a.org_id, a.integration_id, a.fingerprint] as const]));
  const resolving = new Set(changes.filter((a) => a.status === 'resolved').map((a) => keyOf(a.org_id, a.integration_id, a.fingerprint)));
  // In key order: two writers lock shared rows in one order.
  const sorted = [...keyed.keys()].sort();
  const states = new Map<string, FlapState>();
  const add = (rows: Row[]) => rows.forEach((r) => states.set(keyOf(r.org_id, r.integration_id, r.fingerprint), flapStateOf(r)));
  // A fingerprint that resolves gets its row (made when missing); one that only opens is read, and has none until
  // its first resolution: a lone firing never flaps, and that resolution counts the opening before it too.
  const locked = sorted.filter((k) => resolving.has(k)).map((k) => keyed.get(k));
  const read = sorted.filter((k) => !resolving.has(k)).map((k) => keyed.get(k));
  if (locked.length > 0) add(yield ['alertflow_flap_lock', text.lock, [JSON.stringify(locked)]]);
  if (read.length > 0) add(yield ['alertflow_flap_read', text.read, [JSON.stringify(read)]]);
  if (states.size === 0) return;
  const rules = new Map((yield ['alertflow_flap_rules', text.rules, [JSON.stringify([...new Set(changes.map((a) => a.integration_id))])]])
    .map((r) => [`${r.org_id}\u0000${r.id}`, ruleOf(r)]));
  const flapping: string[] = [];
  // Each change in its turn: several of one fingerprint in a batch step its state one after the other.
  for (const a of changes) {
    const key = keyOf(a.org_id, a.integration_id, a.fingerprint);
    let state = states.get(key);
    if (!state) continue;
    const rule = rules.get(`${a.org_id}\u0000${a.integration_id}`) ?? ruleOf(undefined);
    // A row just made for a resolution: the alert's opening is its first change.
    if (state.lastChangeAt === 0 && a.status === 'resolved') state = flapStep(state, a.created_at, rule).state;
    const step = flapStep(state, a.updated_at, rule);
    states.set(key, step.state);
    if (step.state.flapping) flapping.push(a.id);
    if (step.started) {
      fx.facts.push(flapStarted(a, a.updated_at));
      fx.events.push({ orgId: a.org_id, alertId: a.id, type: 'alert.flapping', at: a.updated_at });
    }
  }
  const written = sorted.filter((k) => states.has(k)).map((k) => {
    const st = states.get(k) as FlapState;
    return [...(keyed.get(k) as readonly unknown[]), JSON.stringify(st.changes), st.flapping ? 1 : 0, st.since, st.lastChangeAt];
  });
  yield ['alertflow_flap_write', text.write, [JSON.stringify(written)]];
  if (flapping.length > 0) yield ['alertflow_flap_mark', text.mark, [JSON.stringify(flapping)]];
}

/** Applies a batch's flap changes through an asynchronous connection (Kysely's, or PostgreSQL's prepared statements). */
export async function applyFlaps(text: FlapSql, fx: Effects, run: (...q: FlapQuery) => Promise<Row[]>): Promise<void> {
  const steps = flapWrites(text, fx);
  for (let s = steps.next(); !s.done; s = steps.next(await run(...s.value)));
}

/** The same through SQLite's synchronous statements (ingest's connection or writer thread). */
export function applyFlapsSync(text: FlapSql, fx: Effects, run: (...q: FlapQuery) => Row[]): void {
  const steps = flapWrites(text, fx);
  for (let s = steps.next(); !s.done; s = steps.next(run(...s.value)));
}
