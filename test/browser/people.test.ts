import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, it } from 'node:test';
import { apiAsBrowser, assertAccessible, browserSkipReason, eachStore, screenshot, sessionCookie, sharedBrowser, useDashboard, watchErrors } from './browser.ts';

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

eachStore('incidents and members in a browser', { together: false }, (kind) => {
  const app = useDashboard(browser, kind, { owner: OWNER, env: { OUTBOUND_ALLOW: '127.0.0.1' }, clipboard: true });
  let incidentId: string;
  const shot = (name: string, p = app.page) => screenshot(p, `${kind}-people-${name}`);

  const asBrowser = (method: string, url: string, body?: unknown, ctx = app.context) => apiAsBrowser(app.server, ctx, method, url, body);
  const ok = async (method: string, url: string, body?: unknown) => {
    const r = await asBrowser(method, url, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.raw}`);
    return r.body.data;
  };

  before(async () => {
    // After the owner's first-run setup: an incident of three related alerts, with a webhook page.
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

  it('lists open incidents with filters in the address, and shows one with its alerts and timeline', async () => {
    await app.page.getByRole('link', { name: 'Incidents' }).click();
    const row = app.page.getByRole('link', { name: /Checkout degraded/ });
    await row.waitFor();
    await assertAccessible(app.page, 'incidents');
    await shot('incidents');
    await app.page.getByLabel('Status').selectOption('resolved');
    await app.page.getByRole('button', { name: 'Apply filters' }).click();
    await app.page.getByText('No incident matches these filters').waitFor();
    assert.equal(new URL(app.page.url()).searchParams.get('status'), 'resolved');
    await app.page.goBack();
    await row.click();
    await app.page.getByRole('heading', { name: /#1 Checkout degraded/ }).waitFor();
    assert.equal(new URL(app.page.url()).pathname, `/incidents/${incidentId}`);
    for (const title of ['p99 latency above 800 ms on checkout', '5xx rate above 2% on checkout', 'payment queue backlog above 5,000']) {
      await app.page.getByRole('link', { name: title, exact: true }).waitFor();
    }
    await app.page.getByText('Opened by a workflow').waitFor();
    await app.page.getByText(/Notified by webhook/).first().waitFor();
    await assertAccessible(app.page, 'incident');
  });

  it('acknowledges, assigns and resolves an incident, each step in its timeline', async () => {
    await app.page.getByRole('button', { name: 'Acknowledge' }).click();
    await app.page.locator('.meta-line .badge.status-acknowledged').waitFor();
    await app.page.getByLabel('Assignee').selectOption({ label: `${OWNER.name} (${OWNER.email})` });
    await app.page.getByRole('button', { name: 'Reassign' }).click();
    await app.page.getByText(`Assigned to ${OWNER.name}`).waitFor();
    const timeline = app.page.locator('.timeline');
    await timeline.getByText(`by ${OWNER.name}`).first().waitFor();
    await assertAccessible(app.page, 'incident (acknowledged)');
    await shot('incident');
    await app.page.setViewportSize({ width: 390, height: 800 });
    await shot('incident-390');
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'incident (dark)');
    await shot('incident-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });

    await app.page.getByRole('button', { name: 'Resolve' }).click();
    await app.page.locator('.meta-line .badge.status-resolved').waitFor();
    assert.equal(await app.page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
    const incident = await ok('GET', `/incidents/${incidentId}`);
    const changes = incident.timeline.filter((e: { type: string }) => e.type === 'status_changed').map((e: { data: { to: string } }) => e.data.to);
    assert.deepEqual(changes, ['acknowledged', 'resolved']);
    assert.equal(incident.assigneeId, (await ok('GET', '/auth/session')).user.id);
  });

  it('adds a member whose one-time link signs them in from a fresh browser; removing them ends that session', async () => {
    await app.page.getByRole('link', { name: 'Members' }).click();
    await app.page.getByRole('cell', { name: OWNER.email }).waitFor();
    await app.page.getByRole('button', { name: 'Add member' }).click();
    await app.page.getByLabel('Email').fill(NEWCOMER.email);
    await app.page.getByLabel('Name').fill(NEWCOMER.name);
    await app.page.getByLabel('Role', { exact: true }).selectOption('member');
    await assertAccessible(app.page, 'add member form');
    await app.page.getByRole('button', { name: 'Add member' }).click();
    const link = (await app.page.getByTestId('set-password-link').textContent()) as string;
    assert.match(link, new RegExp(`^${app.base}/set-password\\?token=`));
    await app.page.getByText(/not emailed/).waitFor();
    await app.page.getByRole('button', { name: 'Copy link' }).click();
    assert.equal(await app.page.evaluate('navigator.clipboard.readText()'), link);
    await assertAccessible(app.page, 'member link');
    await shot('member-link');
    await app.page.getByRole('button', { name: 'Done' }).click();
    await app.page.getByRole('cell', { name: NEWCOMER.email }).waitFor();
    await assertAccessible(app.page, 'members');
    await shot('members');
    await app.page.setViewportSize({ width: 390, height: 800 });
    // On a phone the email sits under the name, its column hidden.
    await app.page.getByRole('cell', { name: /^Nora Newcomer\s*nora@example\.test$/ }).waitFor();
    assert.equal(await app.page.getByRole('columnheader', { name: 'Email' }).isVisible(), false);
    await shot('members-390');
    await app.page.setViewportSize({ width: 1280, height: 800 });

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
      await app.page.getByRole('row', { name: new RegExp(NEWCOMER.email) }).getByRole('button', { name: `Remove ${NEWCOMER.name}` }).click();
      await assertAccessible(app.page, 'remove member dialog');
      await app.page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
      await app.page.getByRole('cell', { name: NEWCOMER.email }).waitFor({ state: 'detached' });
      assert.equal((await app.server.request('GET', '/api/v1/incidents', { headers: { cookie } })).status, 401);
      await p.goto(`${app.base}/incidents`);
      await p.getByRole('heading', { name: 'Sign in to AlertFlow', exact: true }).waitFor();
      assert.deepEqual(freshErrors.filter((e) => !/401|404/.test(e)), []);
    } finally {
      await fresh.close();
    }
  });

  it('every member changes their own name and password on their profile', async () => {
    await app.page.getByRole('link', { name: 'Your profile' }).click();
    await app.page.getByLabel('Your name').fill('Olive O.');
    await app.page.getByRole('button', { name: 'Save name' }).click();
    await app.page.getByText('Saved.').waitFor();
    await app.page.getByLabel('Current password').fill('not my password');
    await app.page.getByLabel('New password').fill('an even longer password');
    await app.page.getByRole('button', { name: 'Change password' }).click();
    await app.page.getByText('is not your current password').waitFor();
    await assertAccessible(app.page, 'profile with an error');
    await shot('profile');
    assert.equal((await ok('GET', '/auth/session')).user.name, 'Olive O.');
    assert.deepEqual(app.errors.filter((e) => !/40[0-4]/.test(e)), []);
  });
});
