import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { ROOT, startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { assertAccessible, browserSkipReason, freePort, screenshot, sessionCookie, setUpOrganization, sharedBrowser, watchErrors } from './browser.ts';

/**
 * Incidents and members in Debian's Chromium against a real `alertflow serve`, on both stores: an incident
 * acknowledged, assigned and resolved with its timeline; a member added, signing in through their one-time
 * link in a fresh browser, then removed and refused. Every page is scanned with axe-core and photographed.
 */

const skip = browserSkipReason();
const OWNER = { email: 'olive@example.test', password: 'correct horse battery staple', name: 'Olive Owner' };
const NEWCOMER = { email: 'nora@example.test', name: 'Nora Newcomer', password: 'nora picks a long one' };

const browser = sharedBrowser();
let hook: Server;
let hookUrl: string;
before(async () => {
  if (skip) return;
  // The webhook the workflow notifies: its deliveries show in the incident's timeline.
  hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/pager`;
});
after(async () => {
  await new Promise((resolve) => (hook ? hook.close(resolve) : resolve(undefined)));
});

for (const kind of STORE_KINDS) {
  describe(`incidents and members in a browser (${kind})`, { skip: skip ?? false }, () => {
    let store: TestStore;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    let base: string;
    let incidentId: string;
    const shot = (name: string, p = page) => screenshot(p, `${kind}-people-${name}`);

    const asBrowser = async (method: string, url: string, body?: unknown, ctx = context) => {
      const cookie = await sessionCookie(ctx);
      const headers: Record<string, string> = { cookie };
      if (method !== 'GET') headers['x-csrf-token'] = (await server.request('GET', '/api/v1/auth/session', { headers: { cookie } })).body.data.csrfToken;
      return server.request(method, `/api/v1${url}`, { headers, ...(body !== undefined && { body }) });
    };
    const ok = async (method: string, url: string, body?: unknown) => {
      const r = await asBrowser(method, url, body);
      assert.ok(r.status < 300, `${method} ${url}: ${r.raw}`);
      return r.body.data;
    };

    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: base, OUTBOUND_ALLOW: '127.0.0.1' }, { timeoutMs: 60_000 });
      context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      page = await context.newPage();
      errors = watchErrors(page);

      // The owner, through first-run setup; then an incident of three related alerts, with a webhook page.
      await setUpOrganization(page, server, OWNER);
      const integration = await ok('POST', '/integrations', { name: 'Prometheus prod', preset: 'alertmanager' });
      await ok('POST', '/workflows', {
        name: 'Page checkout', trigger: 'alert.created',
        actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: 'Checkout degraded: {{alert.title}}' }, { type: 'webhook', url: hookUrl, secret: 'a shared secret of some length' }],
      });
      const sent = await fetch(integration.ingestUrl, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ alerts: [
          { status: 'firing', labels: { alertname: 'HighLatency', severity: 'critical', service: 'checkout', instance: 'api-2' }, annotations: { summary: 'p99 latency above 800 ms on checkout' } },
          { status: 'firing', labels: { alertname: 'ErrorRate', severity: 'warning', service: 'checkout', instance: 'api-2' }, annotations: { summary: '5xx rate above 2% on checkout' } },
          { status: 'firing', labels: { alertname: 'QueueBacklog', severity: 'warning', service: 'checkout', instance: 'worker-1' }, annotations: { summary: 'payment queue backlog above 5,000' } },
        ] }),
      });
      assert.equal(sent.status, 200, await sent.text());
      for (let i = 0; ; i++) {
        const open = (await ok('GET', '/incidents')) as Array<{ id: string; alertCount: number }>;
        const detail = open[0] && (await ok('GET', `/incidents/${open[0].id}`));
        if (detail?.alertCount === 3 && detail.timeline.some((e: { type: string }) => e.type === 'notification_sent')) {
          incidentId = detail.id;
          break;
        }
        assert.ok(i < 150, 'the incident with its three alerts and a sent notification');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    after(async () => {
      await context?.close();
      await stopAll([server]);
      await store?.drop();
    });

    it('lists open incidents with filters in the address, and shows one with its alerts and timeline', async () => {
      await page.getByRole('link', { name: 'Incidents' }).click();
      const row = page.getByRole('link', { name: /Checkout degraded/ });
      await row.waitFor();
      await assertAccessible(page, 'incidents');
      await shot('incidents');
      await page.getByLabel('Status').selectOption('resolved');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No incident matches these filters').waitFor();
      assert.equal(new URL(page.url()).searchParams.get('status'), 'resolved');
      await page.goBack();
      await row.click();
      await page.getByRole('heading', { name: /#1 Checkout degraded/ }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/incidents/${incidentId}`);
      for (const title of ['p99 latency above 800 ms on checkout', '5xx rate above 2% on checkout', 'payment queue backlog above 5,000']) {
        await page.getByRole('cell', { name: title }).waitFor();
      }
      await page.getByText('Opened by a workflow').waitFor();
      await page.getByText(/Notified by webhook/).first().waitFor();
      await assertAccessible(page, 'incident');
    });

    it('acknowledges, assigns and resolves an incident, each step in its timeline', async () => {
      await page.getByRole('button', { name: 'Acknowledge' }).click();
      await page.locator('.meta-line .badge.status-acknowledged').waitFor();
      await page.getByLabel('Assignee').selectOption({ label: `${OWNER.name} (${OWNER.email})` });
      await page.getByRole('button', { name: 'Assign' }).click();
      await page.getByText(`Assigned to ${OWNER.name} <${OWNER.email}>`).waitFor();
      const timeline = page.locator('.timeline');
      await timeline.getByText(`by ${OWNER.name} <${OWNER.email}>`).first().waitFor();
      await assertAccessible(page, 'incident (acknowledged)');
      await shot('incident');
      if (kind === 'sqlite') {
        mkdirSync(path.join(ROOT, 'docs/screenshots'), { recursive: true });
        copyFileSync(path.join(ROOT, 'test-results', `${kind}-people-incident.png`), path.join(ROOT, 'docs/screenshots/incident.png'));
      }
      await page.setViewportSize({ width: 390, height: 800 });
      await shot('incident-390');
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await assertAccessible(page, 'incident (dark)');
      await shot('incident-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      await page.getByRole('button', { name: 'Resolve' }).click();
      await page.locator('.meta-line .badge.status-resolved').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
      const incident = await ok('GET', `/incidents/${incidentId}`);
      const changes = incident.timeline.filter((e: { type: string }) => e.type === 'status_changed').map((e: { data: { to: string } }) => e.data.to);
      assert.deepEqual(changes, ['acknowledged', 'resolved']);
      assert.equal(incident.assigneeId, (await ok('GET', '/auth/session')).user.id);
    });

    it('adds a member whose one-time link signs them in from a fresh browser; removing them ends that session', async () => {
      await page.getByRole('link', { name: 'Members' }).click();
      await page.getByRole('cell', { name: OWNER.email }).waitFor();
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.getByLabel('Email').fill(NEWCOMER.email);
      await page.getByLabel('Name').fill(NEWCOMER.name);
      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await assertAccessible(page, 'add member form');
      await page.getByRole('button', { name: 'Add member' }).click();
      const link = (await page.getByTestId('set-password-link').textContent()) as string;
      assert.match(link, new RegExp(`^${base}/set-password\\?token=`));
      await page.getByText(/not emailed/).waitFor();
      await page.getByRole('button', { name: 'Copy link' }).click();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), link);
      await assertAccessible(page, 'member link');
      await shot('member-link');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('cell', { name: NEWCOMER.email }).waitFor();
      await assertAccessible(page, 'members');
      await shot('members');
      await page.setViewportSize({ width: 390, height: 800 });
      await shot('members-390');
      await page.setViewportSize({ width: 1280, height: 800 });

      const fresh = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const p = await fresh.newPage();
        const freshErrors = watchErrors(p);
        await p.goto(link);
        await p.getByRole('heading', { name: 'Set your password' }).waitFor();
        await assertAccessible(p, 'set password');
        await shot('set-password', p);
        await p.getByLabel('New password').fill(NEWCOMER.password);
        await p.getByRole('button', { name: 'Set password and sign in' }).click();
        await p.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
        const mine = await asBrowser('GET', '/auth/session', undefined, fresh);
        assert.deepEqual([mine.body.data.user.email, mine.body.data.user.role], [NEWCOMER.email, 'member']);
        // A member sees the list read-only.
        await p.getByRole('link', { name: 'Members' }).click();
        await p.getByRole('cell', { name: OWNER.email }).waitFor();
        assert.equal(await p.getByRole('button', { name: 'Add member' }).count(), 0);
        await assertAccessible(p, 'members (read-only)');
        // The link is spent.
        await p.goto(link);
        await p.getByLabel('New password').fill('another long password');
        await p.getByRole('button', { name: 'Set password and sign in' }).click();
        await p.getByRole('alert').filter({ hasText: 'already been used' }).waitFor();

        const cookie = await sessionCookie(fresh);
        await page.getByRole('row', { name: new RegExp(NEWCOMER.email) }).getByRole('button', { name: `Remove ${NEWCOMER.name}` }).click();
        await assertAccessible(page, 'remove member dialog');
        await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
        await page.getByRole('cell', { name: NEWCOMER.email }).waitFor({ state: 'detached' });
        assert.equal((await server.request('GET', '/api/v1/incidents', { headers: { cookie } })).status, 401);
        await p.goto(`${base}/incidents`);
        await p.getByRole('heading', { name: 'Sign in to AlertFlow', exact: true }).waitFor();
        assert.deepEqual(freshErrors.filter((e) => !/401|404/.test(e)), []);
      } finally {
        await fresh.close();
      }
    });

    it('every member changes their own name and password on their profile', async () => {
      await page.getByRole('link', { name: 'Your profile' }).click();
      await page.getByLabel('Your name').fill('Olive O.');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('Saved.').waitFor();
      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('New password').fill('an even longer password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('is not your current password').waitFor();
      await assertAccessible(page, 'profile with an error');
      await shot('profile');
      assert.equal((await ok('GET', '/auth/session')).user.name, 'Olive O.');
      assert.deepEqual(errors.filter((e) => !/40[0-4]/.test(e)), []);
    });
  });
}
