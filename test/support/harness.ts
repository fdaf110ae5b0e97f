import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { loadConfig, type Config, type StoreConfig } from '../../src/config.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { OpenApiChecker } from './openapi.ts';
import { createTestStore, type StoreKind, type TestStore } from './stores.ts';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  t: number;
  constructor(t = Date.parse('2026-11-21T10:00:00.000Z')) {
    this.t = t;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface Org {
  id: string;
  ownerId: string;
  key: string;
}

export interface Res {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: any;
  raw: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  ip?: string;
}

export interface Harness {
  kind: StoreKind;
  app: App;
  c: Container;
  clock: TestClock;
  config: Config;
  store: TestStore;
  org: Org;
  openapi: OpenApiChecker;
  newOrg(name?: string): Promise<Org>;
  req(method: string, url: string, opts?: RequestOptions): Promise<Res>;
  /** Creates an integration in `org` (default: the main one) and returns its ingest path. */
  integration(org?: Org, body?: Record<string, unknown>): Promise<{ id: string; path: string; token: string }>;
  ingest(path: string, payload: unknown, opts?: RequestOptions): Promise<Res>;
  /** Ingests one alert, asserting a 200, and returns its id. */
  ingestAlert(path: string, payload: unknown): Promise<string>;
  /** A request that must answer `status` (default 200): its parsed body. */
  ok(method: string, url: string, opts?: RequestOptions, status?: number): Promise<any>;
  close(): Promise<void>;
}

/**
 * The app on a real, freshly migrated store of the given kind, with rate limits lifted unless the test
 * sets them; every response the test receives is checked against the served OpenAPI document.
 */
export async function startHarness(kind: StoreKind, env: Record<string, string> = {}, opts: { via?: (real: StoreConfig) => StoreConfig } = {}): Promise<Harness> {
  const store = await createTestStore(kind);
  const clock = new TestClock();
  const config: Config = {
    ...loadConfig({
      ALERTFLOW_ENV: 'test',
      BASE_URL: 'http://alertflow.test',
      RATE_LIMIT_API_PER_MINUTE: '100000',
      RATE_LIMIT_INGEST_PER_MINUTE: '100000',
      RATE_LIMIT_API_KEYS_PER_DAY: '1000',
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '100000',
      RATE_LIMIT_AUTH_FAILURES_PER_CREDENTIAL_PER_MINUTE: '100000',
      // 1 MiB password hashes (test/unit/passwords.test.ts checks the 64 MiB default): the suite hashes and checks
      // a password in nearly every test, and at 64 MiB those hashes were a third of some files' CPU.
      PASSWORD_HASH_MEMORY_KIB: '1024',
      ...env,
    }),
    // The app may reach the store through something the test controls (a proxy it can cut).
    store: opts.via ? opts.via(store.config) : store.config,
  };
  // docs/testing.md: TEST_LOG shows the server's log when a run needs explaining.
  const log = pino({ level: process.env.TEST_LOG ?? 'silent' });
  const c = await createContainer(config, { log, clock });
  const app = await buildApp(c, log);
  await app.ready();
  const openapi = new OpenApiChecker(app.swagger() as never);

  const newOrg = async (name = 'Acme'): Promise<Org> => {
    const r = await c.orgs.create({ name, ownerEmail: 'owner@acme.test' });
    return { id: r.org.id, ownerId: r.owner.id, key: r.apiKey };
  };
  const org = await newOrg();

  const req = async (method: string, url: string, opts: RequestOptions = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? org.key : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | Buffer | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined && { payload }), remoteAddress: opts.ip ?? '127.0.0.1' });
    openapi.check(method, url, r.statusCode, r.body);
    let body: unknown = null;
    // Everything is JSON but the Prometheus text of /metrics.
    if (r.body !== '') body = String(r.headers['content-type']).startsWith('text/plain') ? r.body : JSON.parse(r.body);
    return { status: r.statusCode, headers: r.headers, body, raw: r.body };
  };

  const integration = async (o: Org = org, body: Record<string, unknown> = { name: 'test' }) => {
    const r = await req('POST', '/api/v1/integrations', { key: o.key, body });
    if (r.status !== 201) throw new Error(`integration create failed: ${r.raw}`);
    return { id: r.body.data.id as string, token: r.body.data.token as string, path: `/api/inbound/webhook/${r.body.data.token}` };
  };

  return {
    kind, app, c, clock, config, store, org, openapi, newOrg, req, integration,
    ingest: (path, payload, opts = {}) => req('POST', path, { key: null, body: payload, ...opts }),
    async ingestAlert(path, payload) {
      const r = await req('POST', path, { key: null, body: payload });
      assert.equal(r.status, 200, r.raw);
      return r.body.data.alerts[0].alertId as string;
    },
    async ok(method, url, opts = {}, status = 200) {
      const r = await req(method, url, opts);
      assert.equal(r.status, status, r.raw);
      return r.body;
    },
    async close() {
      await app.close();
      await c.close();
      await store.drop();
    },
  };
}
