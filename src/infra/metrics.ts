import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Gauge, Histogram, Counter, Registry } from 'prom-client';
import type { Store } from '../db/database.ts';
import { queueStats } from './queue/queue-stats.ts';

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The Prometheus metrics of one instance, in a registry of its own (not prom-client's global one), so that
 * several apps in one process (tests) do not share counters. Counters move where things happen (HTTP hooks,
 * delivery attempts); queue and pool gauges are read from their source at each scrape.
 */
export function createMetrics(deps: { store: Store; now: () => number }) {
  const { store } = deps;
  const registry = new Registry();
  // Process metrics, among them the event-loop delay (monitorEventLoopDelay: p50/p90/p99/max since the last scrape).
  collectDefaultMetrics({ register: registry, prefix: 'alertflow_', eventLoopMonitoringPrecision: 10 });
  const registers = [registry];

  const http = new Histogram({ name: 'alertflow_http_request_duration_seconds', help: 'HTTP requests by method, route pattern and status, with their duration.', labelNames: ['method', 'route', 'status'], buckets: SECONDS_BUCKETS, registers });
  const ingestRequests = new Counter({ name: 'alertflow_ingest_requests_total', help: 'Ingest requests by HTTP status (2xx accepted, 4xx rejected, 503 store unavailable).', labelNames: ['status'], registers });
  const ingestAlerts = new Counter({ name: 'alertflow_ingest_alerts_total', help: 'Alerts of accepted ingest requests by outcome (created, deduplicated, resolved, acknowledged, suppressed, ignored).', labelNames: ['outcome'], registers });
  const deliveries = new Histogram({ name: 'alertflow_delivery_attempt_duration_seconds', help: 'Notification delivery attempts by channel and outcome (sent, retry, failed), with their duration; _count is the number of attempts.', labelNames: ['channel', 'outcome'], buckets: SECONDS_BUCKETS, registers });
  const queueDepth = new Gauge({ name: 'alertflow_queue_depth', help: 'Jobs waiting per queue (due or in backoff).', labelNames: ['queue'], registers });
  const queueAge = new Gauge({ name: 'alertflow_queue_oldest_job_age_seconds', help: 'How long the oldest due job of each queue has waited for a worker.', labelNames: ['queue'], registers });
  const pool = new Gauge({ name: 'alertflow_store_pool_connections', help: 'PostgreSQL pool connections: total, idle, and callers waiting for one.', labelNames: ['state'], registers });

  return {
    http(method: string, route: string, status: number, seconds: number): void {
      http.observe({ method, route, status }, seconds);
    },
    ingest(status: number, outcomes: ReadonlyArray<{ action: string }>): void {
      ingestRequests.inc({ status });
      for (const o of outcomes) ingestAlerts.inc({ outcome: o.action });
    },
    delivery(channel: string, outcome: string, seconds: number): void {
      deliveries.observe({ channel, outcome }, seconds);
    },
    /** The text exposition, with the queue and pool gauges read now. */
    async render(): Promise<{ contentType: string; body: string }> {
      queueDepth.reset();
      queueAge.reset();
      for (const q of await queueStats(store, deps.now())) {
        queueDepth.set({ queue: q.queue }, q.depth);
        queueAge.set({ queue: q.queue }, q.oldestAgeSeconds);
      }
      const usage = store.poolUsage();
      if (usage) for (const [state, n] of Object.entries(usage)) pool.set({ state }, n);
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

/** Whether `given` is `token`, compared in constant time. */
export function sameToken(given: string | undefined, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  // Digests of equal length, so neither the comparison nor its failure depends on the length of a guess.
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}
