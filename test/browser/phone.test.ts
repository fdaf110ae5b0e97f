import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { ROOT } from '../support/process.ts';
import { apiAsBrowser, assertAccessible, assertFits, browserSkipReason, escalatingEnv, ingestAt, OWNER, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * Every page of the dashboard at 390 px, light and dark: none wider than the phone's screen, axe on each. The
 * pages are the router's own list (web/src/app/router.tsx), so a page added without a place here fails. Then the
 * alerts tools that reach past one page: acknowledge all matching with its count and confirmation, the sender's
 * link, a suppression window started from an alert; and the README's screenshots.
 */

const browser = sharedBrowser();
const env = escalatingEnv(500);

/** The router's paths, as written there (`alerts/:id`, `*`); the public pages start with a slash. */
function routerPaths(): string[] {
  const source = readFileSync(path.join(ROOT, 'web/src/app/router.tsx'), 'utf8');
  return [...source.matchAll(/path: '([^']+)'/g)].map((m) => m[1] as string);
}

const GENERATOR = 'http://prometheus.example.test:9090/graph?g0.expr=node_filesystem_avail_bytes';

// Layout does not depend on the store: one server (SQLite) for the file.
describe('the dashboard on a phone', { skip: browserSkipReason() ?? false, concurrency: 1 }, () => {
  const app = useDashboard(browser, 'sqlite', { env });
  const asBrowser = async (method: string, p: string, body?: unknown) => {
    const r = await apiAsBrowser(app.server, app.context, method, p, body);
    assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const ids: Record<string, string> = {};
  let setPasswordLink = '';

  before(async () => {
    const me = (await asBrowser('GET', '/auth/session')).data.user.id as string;
    const member = (await asBrowser('POST', '/users', { email: 'max@example.test', name: 'Max Member', role: 'member' })).data;
    setPasswordLink = member.setPasswordLink.url;
    ids.client = (await asBrowser('POST', '/clients', { name: 'Acme Retail', slug: 'acme-retail' })).data.id;
    ids.policy = (await asBrowser('POST', '/escalation-policies', {
      name: 'Storage', steps: [
        { delayMinutes: 600, targets: [{ type: 'user', id: me }] },
        { delayMinutes: 600, targets: [{ type: 'user', id: member.id }] },
      ],
    })).data.id;
    ids.workflow = (await asBrowser('POST', '/workflows', {
      name: 'Page storage', trigger: 'alert.created', enabled: true,
      conditions: { field: 'labels.team', op: 'eq', value: 'storage' },
      actions: [{ type: 'create_incident', groupBy: ['labels.team'], title: 'Storage is filling up', escalationPolicyId: ids.policy }],
    })).data.id;
    const prometheus = (await asBrowser('POST', '/integrations', { name: 'Prometheus', preset: 'alertmanager', clientId: ids.client })).data;
    ids.integration = prometheus.id;
    ids.heartbeat = (await asBrowser('POST', '/heartbeats', { name: 'Nightly backup', intervalSeconds: 86_400 })).data.id;
    ids.schedule = (await asBrowser('POST', '/schedules', {
      name: 'Primary', timezone: 'Europe/Berlin',
      layers: [{ name: 'Weekly', startsAt: '2026-11-23T08:00:00Z', rotation: 'weekly', users: [me, member.id] }],
    })).data.id;
    const now = Date.now();
    ids.window = (await asBrowser('POST', '/suppression', {
      name: 'Patch night', startsAt: new Date(now + 3_600_000).toISOString(), endsAt: new Date(now + 7_200_000).toISOString(),
      timezone: 'Europe/Berlin', recurrence: 'FREQ=DAILY', matchers: [{ field: 'labels.env', op: 'eq', value: 'staging' }],
    })).data.id;
    // 60 alerts of one storage team (more than a page of 50), the first with a long title, all in one incident.
    await ingestAt(prometheus.ingestUrl, {
      alerts: Array.from({ length: 60 }, (_, i) => ({
        status: 'firing', fingerprint: `disk-${i}`, generatorURL: GENERATOR,
        labels: { alertname: 'DiskAlmostFull', team: 'storage', instance: `db-${i}`, severity: i === 0 ? 'critical' : 'warning' },
        annotations: { summary: i === 0 ? `Disk almost full on ${'a-very-long-volume-name-'.repeat(30)}db-0` : `Disk almost full on db-${i}` },
      })),
    });
    const list = (await asBrowser('GET', '/alerts?limit=100')).data as Array<{ id: string; labels: Record<string, string> }>;
    ids.alert = list.find((a) => a.labels.instance === 'db-0')!.id;
    ids.incident = await eventually('the incident of db-0', async () => (await asBrowser('GET', `/alerts/${ids.alert}`)).data.incidentId ?? undefined) as string;
  });

  /** A concrete address for each of the router's paths. */
  const address = (route: string): string => {
    const p = route.startsWith('/') ? route : `/${route}`;
    if (p === '/*') return '/no-such-page';
    if (p === '/set-password') return new URL(setPasswordLink).pathname + new URL(setPasswordLink).search;
    const param: Record<string, string> = {
      alerts: 'alert', integrations: 'integration', workflows: 'workflow', clients: 'client', heartbeats: 'heartbeat',
      'escalation-policies': 'policy', incidents: 'incident', oncall: 'schedule', suppression: 'window',
    };
    return p.replace(/^\/([^/]+)\/:id/, (_m, section: string) => `/${section}/${ids[param[section] as string]}`);
  };

  async function settle(page: Page): Promise<void> {
    await page.locator('h1').first().waitFor();
    await eventually('the page loaded', async () => ((await page.locator('[aria-busy="true"]').count()) === 0 ? true : undefined), 15_000);
  }

  it('every page fits 390 px, light and dark, and passes axe', async () => {
    const routes = routerPaths();
    assert.ok(routes.length >= 35, `the router lists its pages: ${routes.length}`);
    const problems: string[] = [];
    const signedOut = await app.context.browser()!.newContext({ viewport: { width: 390, height: 844 } });
    try {
      for (const route of routes) {
        const url = address(route);
        assert.ok(!url.includes(':id') && !url.includes('undefined'), `${route} has an address here: ${url}`);
        // The public pages as a stranger sees them; setup, once done, sends to sign-in.
        const page = route.startsWith('/') ? await signedOut.newPage() : app.page;
        await page.setViewportSize({ width: 390, height: 844 });
        try {
          await page.goto(`${app.base}${url}`);
          await settle(page);
          for (const scheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            // Every page is measured even after one fails: the failure lists them all.
            for (const check of [() => assertFits(page, `${url} (${scheme})`), () => assertAccessible(page, `${url} (390 px, ${scheme})`)]) {
              await check().catch((err: Error) => problems.push(err.message.split('\n')[0] + (err.message.includes('violations') ? ` ${JSON.stringify((err as { actual?: unknown }).actual)}` : '')));
            }
          }
          await page.emulateMedia({ colorScheme: 'light' });
        } finally {
          if (page !== app.page) await page.close();
        }
      }
    } finally {
      await signedOut.close();
      await app.page.setViewportSize({ width: 1280, height: 800 });
    }
    assert.deepEqual(problems, [], 'pages wider than a phone, or with accessibility violations');
  });

  it('acknowledge all matching: the count of every page, a confirmation, then the incidents follow', async () => {
    const page = app.page;
    await page.goto(`${app.base}/alerts?label=team%3Dstorage`);
    await page.getByText('60 alerts', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Acknowledge all matching…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Acknowledge all matching alerts?' });
    await dialog.getByText('60 alerts matching these filters, on every page, can be acknowledged; their incidents follow.').waitFor();
    await assertAccessible(page, 'acknowledge all matching, confirmation');
    await screenshot(page, 'phone-ack-all-confirm');
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await asBrowser('GET', '/alerts?status=acknowledged&label=team%3Dstorage&limit=1')).meta.total, 0);
    await page.getByRole('button', { name: 'Acknowledge all matching…' }).click();
    await dialog.getByRole('button', { name: 'Acknowledge 60 alerts' }).click();
    await page.getByRole('status').filter({ hasText: 'Acknowledged 60 alerts.' }).waitFor();
    assert.equal((await asBrowser('GET', '/alerts?status=acknowledged&label=team%3Dstorage&limit=1')).meta.total, 60);
    assert.equal((await asBrowser('GET', `/incidents/${ids.incident}`)).data.status, 'acknowledged', 'the incident followed its only alert');
    const audit = (await asBrowser('GET', '/audit-log?action=alert.acknowledged_matching')).data;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].metadata.changed, 60);
  });

  it('an alert page links the sender\'s own page and starts a suppression window from the alert\'s labels', async () => {
    const page = app.page;
    await page.goto(`${app.base}/alerts/${ids.alert}`);
    const link = page.getByRole('link', { name: 'Open in prometheus.example.test:9090' });
    assert.equal(await link.getAttribute('href'), GENERATOR);
    assert.match(await link.getAttribute('rel') ?? '', /noopener/);
    await page.getByRole('link', { name: 'Prometheus', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Suppress alerts like this…' }).click();
    await page.getByRole('heading', { name: 'New suppression window' }).waitFor();
    await page.getByText(/^Prefilled from the alert/).waitFor();
    for (const [i, [k, v]] of [['alertname', 'DiskAlmostFull'], ['team', 'storage'], ['instance', 'db-0'], ['severity', 'critical']].entries()) {
      assert.equal(await page.getByLabel(`Field ${i + 1}`, { exact: true }).inputValue(), `labels.${k}`);
      assert.equal(await page.getByLabel(`Value ${i + 1}`, { exact: true }).inputValue(), v);
    }
    // In the workflow editor's words: "equals", and the days by name.
    assert.equal(await page.getByLabel('Operator 1', { exact: true }).locator('option:checked').textContent(), 'equals');
    await page.getByLabel('Repeats').selectOption('weekly');
    await page.getByRole('checkbox', { name: 'Saturday' }).waitFor();
    await page.getByLabel('Repeats').selectOption('none');
    await page.getByLabel('Name').fill('Disk alerts of db-0 while we move it');
    await page.getByRole('button', { name: 'Create window' }).click();
    await page.getByRole('heading', { name: 'Suppression windows' }).waitFor();
    const windows = (await asBrowser('GET', '/suppression')).data as Array<{ name: string; matchers: unknown[]; clientId: string | null }>;
    const made = windows.find((w) => w.name === 'Disk alerts of db-0 while we move it');
    assert.ok(made);
    assert.equal(made.matchers.length, 4);
    assert.equal(made.clientId, ids.client, 'the alert\'s client');
    assert.deepEqual(app.errors, []);
  });

  it('README screenshots: the incident page with its escalation, the alerts list at 390 px', async () => {
    const shots = path.join(ROOT, 'docs/screenshots');
    mkdirSync(shots, { recursive: true });
    const page = app.page;
    // One alert of its own, its incident paged by step 1 and then acknowledged: the timeline says all of it.
    await asBrowser('POST', '/workflows', {
      name: 'Page the database team', trigger: 'alert.created', enabled: true,
      conditions: { field: 'labels.team', op: 'eq', value: 'db' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.title}}', escalationPolicyId: ids.policy }],
    });
    const integration = (await asBrowser('GET', `/integrations/${ids.integration}`)).data;
    await ingestAt(integration.ingestUrl, { alerts: [{
      status: 'firing', fingerprint: 'orders-db', generatorURL: GENERATOR,
      labels: { alertname: 'PostgresDown', team: 'db', service: 'orders-db', severity: 'critical' },
      annotations: { summary: 'Primary database refuses connections' },
    }] });
    const alert = ((await asBrowser('GET', '/alerts?fingerprint=orders-db')).data as Array<{ id: string }>)[0]!.id;
    const incident = await eventually('its incident', async () => (await asBrowser('GET', `/alerts/${alert}`)).data.incidentId ?? undefined) as string;
    await page.goto(`${app.base}/incidents/${incident}`);
    const timeline = page.locator('.timeline');
    await timeline.getByText(new RegExp(`^Escalation step 1 paged ${OWNER.name}`)).waitFor();
    await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await timeline.getByText('Status changed from triggered to acknowledged').waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(shots, 'incident-escalation.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${app.base}/alerts?status=`);
      await page.getByRole('list', { name: 'Alerts' }).getByRole('listitem').first().waitFor();
      await settle(page);
      await page.screenshot({ path: path.join(shots, 'alerts-390.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
