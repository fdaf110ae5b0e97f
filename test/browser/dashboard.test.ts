import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { runCli, type CliResult } from '../support/process.ts';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, eachStore, fillFirstRunSetup, ingestAt, OWNER, screenshot, sessionCookie, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The dashboard in Debian's Chromium against a real `alertflow serve` process, on both stores: first-run setup,
 * sign-in and sign-out, integrations, alerts, API keys, the mapping editor, the audit log, inert sender HTML,
 * a member's limits and a cross-site form post. Every page is scanned with axe-core and photographed.
 */

const MEMBER = { email: 'member@example.test', password: 'member password 1234', name: 'Max Member' };

const browser = sharedBrowser();

eachStore('dashboard in a browser', { together: false }, (kind) => {
  const app = useDashboard(browser, kind, { owner: null, clipboard: true });
  let orgId: string;
  let integrationId: string;
  let ingestUrl: string;
  let alertId: string;
  let memberAdded: Promise<CliResult>;
  const shot = (name: string) => screenshot(app.page, `${kind}-${name}`);

  const asBrowser = (method: string, path: string, body?: unknown, ctx = app.context) => apiAsBrowser(app.server, ctx, method, path, body);
  const ingest = (payload: unknown) => ingestAt(ingestUrl, payload);
  const signIn = async (p: Page, who: { email: string; password: string }) => {
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel('Password').fill(who.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
  };

  it('first-run setup: the logged link creates the organization and its owner, then is dead', async () => {
    const link = await fillFirstRunSetup(app.page, app.server.output, OWNER);
    await assertAccessible(app.page, 'setup');
    await shot('setup');
    await app.page.getByRole('button', { name: 'Create organization' }).click();
    await app.page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
    await app.page.getByText('No integrations yet').waitFor();
    await assertAccessible(app.page, 'integrations (empty)');
    await shot('integrations-empty');
    const s = await asBrowser('GET', '/auth/session');
    assert.equal(s.status, 200);
    assert.equal(s.body.data.user.role, 'owner');
    orgId = s.body.data.organization.id;
    // The CLI is a separate process that takes seconds to start: it adds the member while other tests run.
    memberAdded = runCli(['user', 'add', '--org', orgId, '--email', MEMBER.email, '--name', MEMBER.name, '--role', 'member', '--password', MEMBER.password, '--json'],
      { DATABASE_URL: app.store.url }, { timeoutMs: 60_000 });
    const again = await fetch(link.replace('/setup?token=', '/api/v1/auth/setup?token='));
    assert.equal(((await again.json()) as { data: { needed: boolean } }).data.needed, false);
  });

  it('sign out refuses the old cookie; a wrong password is refused in words; sign-in returns to the page asked for', async () => {
    const old = await sessionCookie(app.context);
    await app.page.getByRole('button', { name: 'Sign out' }).click();
    await app.page.getByRole('heading', { name: 'Sign in to AlertFlow', exact: true }).waitFor();
    assert.equal((await app.server.request('GET', '/api/v1/alerts', { headers: { cookie: old } })).status, 401);
    await app.page.goto(`${app.base}/integrations`);
    await app.page.getByRole('heading', { name: 'Sign in to AlertFlow', exact: true }).waitFor();
    await signIn(app.page, { email: OWNER.email, password: 'wrong password here' });
    await app.page.getByRole('alert').filter({ hasText: /wrong|invalid|incorrect/i }).waitFor();
    await assertAccessible(app.page, 'sign-in with an error');
    await shot('sign-in');
    await signIn(app.page, OWNER);
    await app.page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
    assert.equal(new URL(app.page.url()).pathname, '/integrations');
  });

  it('creates an integration, copies its URL, and an alert posted to it shows in the list and in its detail', async () => {
    await app.page.getByRole('button', { name: 'New integration' }).click();
    await app.page.getByLabel('Name').fill('Prometheus prod');
    await app.page.getByLabel('Preset').selectOption('alertmanager');
    await assertAccessible(app.page, 'new integration form');
    await app.page.getByRole('button', { name: 'Create integration' }).click();
    await app.page.getByRole('heading', { name: 'Prometheus prod', exact: true }).waitFor();
    integrationId = new URL(app.page.url()).pathname.split('/').pop() as string;
    await app.page.getByRole('button', { name: 'Copy URL' }).click();
    await app.page.getByRole('button', { name: 'Copied' }).waitFor();
    ingestUrl = await app.page.evaluate('navigator.clipboard.readText()') as string;
    assert.equal(ingestUrl, await app.page.getByTestId('ingest-url').textContent());
    assert.match(ingestUrl, /\/api\/inbound\/webhook\//);
    // "Try it" posts the preset's own payload: an Alertmanager integration accepts it.
    const curl = (await app.page.getByLabel('curl example').textContent()) as string;
    const body = /-d '(.*)' \\\n/s.exec(curl)?.[1]?.replace(/'\\''/g, "'");
    assert.ok(body && curl.includes(ingestUrl), curl);
    const tried = await fetch(ingestUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(tried.status, 200, await tried.text());
    // The PagerDuty-compatible URL and routing key, copied from the page, page this integration.
    const compatible = app.page.getByRole('region', { name: 'PagerDuty- and Opsgenie-compatible APIs' });
    await compatible.getByRole('button', { name: 'Copy routing key' }).click();
    await compatible.getByRole('button', { name: 'Copied' }).waitFor();
    const routingKey = await app.page.evaluate('navigator.clipboard.readText()') as string;
    const event = { routing_key: routingKey, event_action: 'trigger', payload: { summary: 'Paged as PagerDuty', source: 'browser-test', severity: 'info' } };
    const paged = await fetch((await app.page.getByTestId('pagerduty-url').textContent()) as string,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    assert.equal(paged.status, 202, await paged.text());
    for (const tool of ['Alertmanager (pagerduty_configs)', 'Alertmanager (opsgenie_configs)', 'Zabbix (media type Opsgenie)']) await app.page.getByText(tool).click();
    assert.match((await app.page.getByLabel('Opsgenie receiver').textContent()) as string, /opsgenie_configs:/);
    await assertAccessible(app.page, 'integration');
    await shot('integration');
    await assertAccessibleNarrowAndDark(app.page, 'integration', `${kind}-integration`);

    alertId = await ingest({ alerts: [
      { status: 'firing', labels: { alertname: 'DiskFull', severity: 'critical', instance: 'db1' }, annotations: { summary: 'Disk almost full' } },
      { status: 'firing', labels: { alertname: 'HighLatency', severity: 'warning', instance: 'api-2', service: 'checkout' }, annotations: { summary: 'p99 latency above 800 ms on checkout' } },
      { status: 'firing', labels: { alertname: 'CertExpiry', severity: 'info', instance: 'web-1' }, annotations: { summary: 'TLS certificate expires in 14 days' } },
    ] });
    await app.page.getByRole('link', { name: 'Alerts' }).click();
    const row = app.page.getByRole('link', { name: 'Disk almost full' });
    await row.waitFor();
    await assertAccessible(app.page, 'alerts');
    await shot('alerts');
    await app.page.setViewportSize({ width: 390, height: 800 });
    await screenshot(app.page, `${kind}-alerts-390`);
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'alerts (dark)');
    await shot('alerts-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await row.click();
    await app.page.getByRole('heading', { name: 'Last raw payload', exact: true }).waitFor();
    assert.equal(new URL(app.page.url()).pathname, `/alerts/${alertId}`);
    await app.page.getByText('db1').first().waitFor();
    await assertAccessible(app.page, 'alert detail');
    await shot('alert-detail');
  });

  it('acknowledging in the dashboard is recorded as the user', async () => {
    await app.page.getByRole('button', { name: 'Acknowledge' }).click();
    await app.page.locator('.badge.status-acknowledged').first().waitFor();
    await app.page.getByText(`by ${OWNER.name} <${OWNER.email}>`).waitFor();
    const r = await asBrowser('GET', `/alerts/${alertId}`);
    assert.equal(r.body.data.status, 'acknowledged');
    assert.equal(r.body.data.acknowledgedBy.type, 'user');
  });

  it('a reload on a deep link keeps the page', async () => {
    await app.page.reload();
    await app.page.getByRole('heading', { name: 'Last raw payload', exact: true }).waitFor();
  });

  it('has a favicon the browser can load', async () => {
    const href = await app.page.locator('link[rel="icon"]').getAttribute('href');
    assert.ok(href, 'no <link rel="icon">');
    const r = await fetch(new URL(href, app.base));
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  });

  it('an API key is shown once, works, and is refused once revoked', async () => {
    await app.page.goto(`${app.base}/settings/api-keys`);
    await app.page.getByText('No API keys').waitFor();
    await assertAccessible(app.page, 'API keys (empty)');
    await app.page.getByRole('button', { name: 'New API key' }).click();
    await app.page.getByLabel('Name').fill('status page');
    await app.page.getByLabel('alerts:read').check();
    await assertAccessible(app.page, 'new API key form');
    await shot('api-key-new');
    await app.page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await app.page.getByTestId('new-key').textContent()) as string;
    await app.page.getByText(/shown only once/).waitFor();
    await shot('api-key-created');
    assert.equal((await app.server.request('GET', '/api/v1/alerts', { key })).status, 200);
    await app.page.getByRole('button', { name: 'I have copied the key' }).click();
    const row = app.page.getByRole('row', { name: /status page/ });
    await row.waitFor();
    assert.equal(await app.page.getByText(key).count(), 0, 'the key must not be shown again');
    await assertAccessible(app.page, 'API keys');
    await shot('api-keys');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await app.page.getByText('No API keys').waitFor();
    assert.equal((await app.server.request('GET', '/api/v1/alerts', { key })).status, 401);
  });

  it('edits a mapping with a live preview, then saves it', async () => {
    await app.page.goto(`${app.base}/integrations/${integrationId}`);
    await app.page.getByRole('link', { name: 'Edit field mappings' }).click();
    await app.page.getByRole('heading', { name: /Field mappings/ }).waitFor();
    await app.page.getByTestId('preview-alerts').waitFor();
    const targets = app.page.getByLabel(/^Target \d+$/);
    let titleRow = -1;
    for (let i = 0; i < await targets.count(); i++) if (await targets.nth(i).inputValue() === 'title') titleRow = i;
    if (titleRow < 0) {
      await app.page.getByRole('button', { name: 'Add fields row' }).click();
      titleRow = await targets.count() - 1;
      await targets.nth(titleRow).fill('title');
    }
    await app.page.getByLabel(`Source paths ${titleRow + 1}`).fill('labels.instance');
    const preview = app.page.getByTestId('preview-alerts');
    await preview.filter({ hasText: '"title": "' }).waitFor();
    await assertAccessible(app.page, 'mapping editor');
    await shot('mapping');
    await app.page.getByRole('button', { name: 'Save mapping' }).click();
    await app.page.getByText('Mapping saved.').waitFor();
    const r = await asBrowser('GET', `/integrations/${integrationId}`);
    const title = r.body.data.mapping.fields.title;
    assert.deepEqual(Array.isArray(title) ? title : [title], ['labels.instance']);
  });

  it('filters the audit log by api_key.used', async () => {
    await app.page.goto(`${app.base}/audit-log`);
    await app.page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    await app.page.getByLabel('Action').fill('api_key.used');
    await app.page.getByRole('button', { name: 'Apply filters' }).click();
    // The unfiltered list already holds api_key.used rows: wait for the filtered list to replace it.
    await eventually('only api_key.used rows', async () => {
      const actions = await app.page.locator('tbody td:nth-child(2) code').allTextContents();
      return actions.length > 0 && actions.every((a) => a === 'api_key.used') ? actions : undefined;
    }, 10_000);
    // A row counts a minute's requests of one key, method, path and status, and says so.
    const cells = await app.page.locator('tbody td:nth-child(2)').allTextContents();
    assert.ok(cells.every((c) => /^api_key\.used \d+ × (GET|POST|PUT|PATCH|DELETE) \/\S+ → \d{3}$/.test(c)), JSON.stringify(cells.slice(0, 3)));
    await assertAccessible(app.page, 'audit log');
    await shot('audit-log');
  });

  it('sender HTML and a javascript: annotation render inert', async () => {
    await asBrowser('PATCH', `/integrations/${integrationId}`, { mapping: null });
    const id = await ingest({ alerts: [{
      status: 'firing',
      labels: { alertname: '<img src=x onerror="window.__xss=1">Pwned', severity: 'warning' },
      annotations: { description: '<script>window.__xss=2</script><b>bold</b>', runbook_url: 'javascript:window.__xss=3', dashboard: 'https://grafana.example.test/d/1' },
    }] });
    await app.page.goto(`${app.base}/alerts/${id}`);
    await app.page.getByRole('heading', { name: /<img src=x/ }).waitFor();
    await app.page.getByText('<script>window.__xss=2</script><b>bold</b>', { exact: false }).first().waitFor();
    assert.equal(await app.page.locator('a[href^="javascript:"]').count(), 0);
    assert.equal(await app.page.locator('main img, main script, main b').count(), 0);
    await app.page.getByRole('link', { name: 'https://grafana.example.test/d/1' }).waitFor();
    await app.page.getByText('javascript:window.__xss=3', { exact: true }).click();
    assert.equal(await app.page.evaluate('window.__xss'), undefined);
    await app.page.goto(`${app.base}/alerts?status=`);
    await app.page.getByRole('link', { name: /<img src=x/ }).waitFor();
    assert.equal(await app.page.evaluate('window.__xss'), undefined);
  });

  it('a member sees no create button for API keys and the API refuses them 403', async () => {
    const r = await memberAdded;
    assert.equal(r.code, 0, r.stderr);
    const ctx = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${app.base}/settings/api-keys`);
      await signIn(p, MEMBER);
      await p.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
      await p.getByText('Ask an owner or admin').waitFor();
      assert.equal(await p.getByRole('button', { name: 'New API key' }).count(), 0);
      await assertAccessible(p, 'API keys as a member');
      const denied = await asBrowser('POST', '/api-keys', { name: 'x', scopes: ['alerts:read'] }, ctx);
      assert.equal(denied.status, 403, denied.raw);
    } finally {
      await ctx.close();
    }
  });

  it('a cross-site form post carrying the session cookie changes nothing', async () => {
    const open = await ingest({ alerts: [{ status: 'firing', labels: { alertname: 'CsrfTarget', severity: 'critical' } }] });
    // Another origin on the same host: SameSite=Lax still sends the cookie with this top-level POST, so the
    // CSRF check is what must refuse it.
    const attacker: Server = createServer((_, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form method="POST" enctype="text/plain" action="${app.base}/api/v1/alerts/bulk">`
        + `<input name='{"action":"resolve","ids":["${open}"],"x":"' value='"}'></form>`
        + '<script>document.forms[0].submit()</script>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const p = await app.context.newPage();
      const answer = p.waitForResponse((res) => res.url().endsWith('/api/v1/alerts/bulk'));
      await p.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`);
      const res = await answer;
      assert.ok(res.status() >= 400, `cross-site POST answered ${res.status()}`);
      await p.close();
    } finally {
      attacker.close();
    }
    const r = await asBrowser('GET', `/alerts/${open}`);
    assert.equal(r.body.data.status, 'firing');
  });

  it('logged no script error or CSP violation', () => {
    assert.deepEqual(app.errors, []);
  });
});
