import { heartbeatsRepo } from '../../src/modules/heartbeats/heartbeats-repo.ts';
import { startHarness } from '../support/harness.ts';

/**
 * How long one checker takes to raise 1,000 heartbeats missed at the same moment (claim + alert write, one
 * transaction each), on each store. Run: `npx node test/bench/heartbeat-burst.ts`.
 */

const N = 1000;
for (const kind of ['sqlite', 'postgres'] as const) {
  const h = await startHarness(kind, { HEARTBEAT_CHECK_SECONDS: '3600' });
  const repo = heartbeatsRepo();
  const now = h.clock.now();
  for (let i = 0; i < N; i++) {
    await repo.insert(h.c.store.db, {
      id: `hbt_burst_${i}`, org_id: h.org.id, name: `job-${i}`, interval_seconds: 60, grace_seconds: 0, severity: 'critical', client_id: null,
      labels: '{}', paused: 0, token_hash: `hash-${i}`, state: 'up', last_ping_at: now, due_at: now + 60_000, created_at: now, updated_at: now,
    });
  }
  h.clock.advance(60_001);
  const t0 = performance.now();
  const raised = await h.c.heartbeats.checkDue();
  const ms = performance.now() - t0;
  console.log(`${kind}: ${raised} of ${N} missed heartbeats raised in ${Math.round(ms)} ms (${(ms / N).toFixed(2)} ms each)`);
  await h.close();
}
