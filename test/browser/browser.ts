import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { ROOT, startServer, stopAll, type ChildEnv, type ServerProcess } from '../support/process.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { createTestStore, eachStore as eachStoreOf, type EachStoreOptions, type StoreKind, type TestStore } from '../support/stores.ts';

/**
 * Shared pieces of the browser tests: Debian's Chromium (never a downloaded browser), the built dashboard,
 * an accessibility scan and screenshots under test-results/.
 */

export const CHROMIUM = '/usr/bin/chromium';
const REQUIRED = process.env.ALERTFLOW_REQUIRE_BROWSER === '1';

/** Why the browser tests cannot run here, or null; with ALERTFLOW_REQUIRE_BROWSER=1 a missing browser is a failure. */
export function browserSkipReason(): string | null {
  if (existsSync(CHROMIUM)) return null;
  if (REQUIRED) throw new Error(`ALERTFLOW_REQUIRE_BROWSER=1 but ${CHROMIUM} is missing (apt-get install chromium)`);
  return `${CHROMIUM} is missing: install Debian's chromium package to run the browser tests`;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-quic', '--no-first-run'],
  });
}

/** The server serves web/dist: build it once if this checkout has no build yet (the prepare script normally did). */
export function ensureDashboardBuilt(): void {
  if (existsSync(path.join(ROOT, 'web/dist/index.html'))) return;
  const web = path.join(ROOT, 'web');
  if (!existsSync(path.join(web, 'node_modules'))) {
    const ci = spawnSync('npm', ['ci', '--prefix', web], { stdio: 'inherit' });
    assert.equal(ci.status, 0, 'npm ci in web/ failed');
  }
  const r = spawnSync('npm', ['run', 'build', '--prefix', web], { stdio: 'inherit' });
  assert.equal(r.status, 0, 'building the dashboard failed');
}

/** A port free right now: the server needs it before starting, since BASE_URL (the origin it accepts) names it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const RESULTS = path.join(ROOT, 'test-results');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  // From the top: a page scrolled down would be drawn with its sticky bar half-way down the picture.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(RESULTS, `${name}.png`), fullPage: true });
}

/** axe-core on the current page: any serious or critical violation fails the test, naming the rule and the elements. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
  const violations = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))`) as string[];
  assert.deepEqual(violations, [], `accessibility violations on ${what}`);
}

/**
 * The page is no wider than its viewport (nothing to scroll sideways on a phone); a failure names the elements
 * that stick out on the right.
 */
export async function assertFits(page: Page, what: string): Promise<void> {
  // Two frames: the layout of a resize has been drawn, and what a media query re-rendered with it.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const [width, viewport, wide] = await page.evaluate(`(() => {
    const w = innerWidth;
    const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > w + 0.5 && el.getClientRects().length > 0)
      .slice(-5).map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' (' + Math.round(el.getBoundingClientRect().right) + ' px)');
    return [document.documentElement.scrollWidth, w, out];
  })()`) as [number, number, string[]];
  assert.ok(width <= viewport, `${what}: the page is ${width} px wide at ${viewport} px; sticking out: ${wide.join(', ')}`);
}

/** Collects what the page logs as errors (a CSP violation, an exception), to assert none happened. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/** The `Cookie` header of the context's session, to call the API as the signed-in browser would. */
export async function sessionCookie(context: BrowserContext): Promise<string> {
  const c = (await context.cookies()).find((x) => x.name === 'af_session');
  assert.ok(c, 'no af_session cookie in the browser');
  return `af_session=${c.value}`;
}

/** The API as a signed-in browser context: its cookie, and its CSRF token for writes. */
export async function apiAsBrowser(server: ServerProcess, context: BrowserContext, method: string, path: string, body?: unknown) {
  const cookie = await sessionCookie(context);
  const headers: Record<string, string> = { cookie };
  if (method !== 'GET') {
    const s = await server.request('GET', '/api/v1/auth/session', { headers: { cookie } });
    headers['x-csrf-token'] = s.body.data.csrfToken;
  }
  return server.request(method, `/api/v1${path}`, { headers, ...(body !== undefined && { body }) });
}

/** Posts `payload` to an ingest URL, asserting a 200: the id of its first alert. */
export async function ingestAt(url: string, payload: unknown): Promise<string> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return JSON.parse(text).data.alerts[0].alertId as string;
}

/** Opens the setup link `alertflow serve` logged and fills the form for `owner`; the caller submits it. Returns the link. */
export async function fillFirstRunSetup(page: Page, serverOutput: string, owner: { name: string; email: string; password: string }, organization = 'Acme'): Promise<string> {
  const link = /(https?:\/\/\S+\/setup\?token=[\w-]+)/.exec(serverOutput)?.[1];
  assert.ok(link, `no setup link in the log:\n${serverOutput}`);
  await page.goto(link);
  await page.getByLabel('Organization name').fill(organization);
  await page.getByLabel('Your name').fill(owner.name);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  return link;
}

/** First-run setup through the link the server logged: the organization and its owner, signed in on `page`. */
export async function setUpOrganization(page: Page, server: ServerProcess, owner: { name: string; email: string; password: string }, organization = 'Acme'): Promise<void> {
  await fillFirstRunSetup(page, server.output, owner, organization);
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
}

/** The owner each browser test's organization is set up with. */
export const OWNER = { email: 'owner@example.test', password: 'correct horse battery staple', name: 'Olive Owner' };

/**
 * One Chromium for a test file: launched before its tests unless they are skipped, closed after them.
 * Returns a getter, since the browser exists only once the hook has run.
 */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    if (browserSkipReason()) return;
    ensureDashboardBuilt();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not running (tests skipped, or used before the hook)');
    return browser;
  };
}

/**
 * The servers' environment for a file whose pages escalate quickly and email: a policy "minute" of `minuteMs`
 * (ESCALATION_MINUTE_MS exists for tests), jobs polled often, and a real SMTP sink started before the file's
 * servers (its address filled in then) and closed after them.
 */
export function escalatingEnv(minuteMs: number): Record<string, string> {
  const env: Record<string, string> = { ESCALATION_MINUTE_MS: String(minuteMs), JOB_POLL_MS: '50' };
  let smtp: SmtpSink | undefined;
  before(async () => {
    smtp = await startSmtpSink();
    env.SMTP_URL = smtp.url;
  });
  after(async () => { await smtp?.close(); });
  return env;
}

/** axe at 390 px wide, then in dark mode, each photographed (`<shotName>-390`, `-dark`); back to 1280 px, light, after. */
export async function assertAccessibleNarrowAndDark(page: Page, what: string, shotName: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 800 });
  await assertAccessible(page, `${what} (390 px)`);
  await screenshot(page, `${shotName}-390`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await screenshot(page, `${shotName}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** A block per store kind (see stores.ts's `eachStore`), skipped as a whole without a browser. */
export function eachStore(title: string, options: EachStoreOptions, body: (kind: StoreKind) => void): void {
  const skip = browserSkipReason();
  eachStoreOf(title, { ...options, ...(skip !== null && { skip }) }, body);
}

export interface DashboardOptions {
  /** More environment for the server, e.g. OUTBOUND_ALLOW for a webhook on 127.0.0.1. */
  env?: ChildEnv;
  /** Options of the browser context, over a 1280 × 800 viewport. */
  context?: BrowserContextOptions;
  /** Lets the page use the clipboard, for the Copy buttons. */
  clipboard?: boolean;
  /** Who sets up the organization on first run; null leaves the setup page to the tests. */
  owner?: { name: string; email: string; password: string } | null;
}

/** What a describe block's tests drive: its store, its `alertflow serve`, a signed-in browser context and page. */
export interface Dashboard {
  readonly store: TestStore;
  readonly server: ServerProcess;
  /** The origin the server accepts (its BASE_URL). */
  readonly base: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** What the page logged as errors so far (see watchErrors). */
  readonly errors: string[];
}

/**
 * Before the tests of the enclosing describe block: a store of `kind`, a server on it, a browser context and page,
 * and first-run setup by OWNER (or options.owner); after them, all of it closed, stopped and dropped in that order.
 * Hooks a file adds after this call run after these ones, so they can use the dashboard.
 */
export function useDashboard(browser: () => Browser, kind: StoreKind, options: DashboardOptions = {}): Dashboard {
  let store: TestStore | undefined;
  let server: ServerProcess | undefined;
  let context: BrowserContext | undefined;
  let ready: Dashboard | undefined;
  before(async () => {
    store = await createTestStore(kind);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: base, ...options.env });
    context = await browser().newContext({ viewport: { width: 1280, height: 800 }, ...options.context });
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    const errors = watchErrors(page);
    if (options.owner !== null) await setUpOrganization(page, server, options.owner ?? OWNER);
    ready = { store, server, base, context, page, errors };
  });
  after(async () => {
    await context?.close();
    await stopAll([server]);
    await store?.drop();
  });
  const get = (): Dashboard => {
    if (!ready) throw new Error('the dashboard is not set up (tests skipped, its before hook failed, or used before it)');
    return ready;
  };
  return {
    get store() { return get().store; },
    get server() { return get().server; },
    get base() { return get().base; },
    get context() { return get().context; },
    get page() { return get().page; },
    get errors() { return get().errors; },
  };
}
