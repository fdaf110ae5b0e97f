import { flapStarted } from '../analytics/analytics-fns.ts';
import type { AlertState, Effects } from './alert-effects-fns.ts';
import { DEFAULT_FLAP_RULE, flapStep, type FlapRule, type FlapState } from './flap-fns.ts';

/**
 * The alert writer's flap bookkeeping (flap-fns.ts holds the rule): for each change of a batch that counts,
 * its (integration, fingerprint)'s state is locked and read, stepped, and written back; the alert is marked
 * while it flaps; a start adds the `alert.flapping` outbox event (its notice) and the `flaps` count to the
 * batch's effects, which the writer stores next in the same transaction. Written once as a generator of
 * statements, so that SQLite's synchronous prepared statements and the asynchronous paths run the same steps.
 */

/** One statement: a name (PostgreSQL's prepared statement), its text and its parameters. */
export type FlapQuery = readonly [name: string, text: string, params: unknown[]];
type Row = Record<string, unknown>;

export function flapSql(p: (i: number) => string) {
  const key = `org_id = ${p(1)} and integration_id = ${p(2)} and fingerprint = ${p(3)}`;
  return {
    // Inserted when missing, and locked either way (an upsert that changes nothing still takes the row's lock).
    lock: `insert into alert_flaps (org_id, integration_id, fingerprint, changes, flapping, since, last_change_at)
      values (${p(1)}, ${p(2)}, ${p(3)}, '[]', 0, null, 0)
      on conflict (org_id, integration_id, fingerprint) do update set last_change_at = alert_flaps.last_change_at
      returning changes, flapping, since, last_change_at`,
    rule: `select flap_threshold, flap_window_seconds, flap_stable_seconds from integrations where org_id = ${p(1)} and id = ${p(2)}`,
    write: `update alert_flaps set changes = ${p(4)}, flapping = ${p(5)}, since = ${p(6)}, last_change_at = ${p(7)} where ${key}`,
    mark: `update alerts set flapping = 1 where id = ${p(1)}`,
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

const keyOf = (a: AlertState) => `${a.org_id}\u0000${a.integration_id}\u0000${a.fingerprint}`;

function* flapWrites(text: FlapSql, fx: Effects): Generator<FlapQuery, void, Row[]> {
  // In key order, and each change in its turn: two writers lock shared rows in one order.
  const changes = fx.flaps.map((a, i) => ({ a, i })).sort((x, y) => (keyOf(x.a) < keyOf(y.a) ? -1 : keyOf(x.a) > keyOf(y.a) ? 1 : x.i - y.i));
  fx.flaps = [];
  for (const { a } of changes) {
    const key = [a.org_id, a.integration_id, a.fingerprint];
    const [row] = yield ['alertflow_flap_lock', text.lock, key];
    const [rule] = yield ['alertflow_flap_rule', text.rule, [a.org_id, a.integration_id]];
    const { state, started } = flapStep(flapStateOf(row as Row), a.updated_at, ruleOf(rule));
    yield ['alertflow_flap_write', text.write, [...key, JSON.stringify(state.changes), state.flapping ? 1 : 0, state.since, state.lastChangeAt]];
    if (state.flapping) yield ['alertflow_flap_mark', text.mark, [a.id]];
    if (started) {
      fx.facts.push(flapStarted(a, a.updated_at));
      fx.events.push({ orgId: a.org_id, alertId: a.id, type: 'alert.flapping', at: a.updated_at });
    }
  }
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
