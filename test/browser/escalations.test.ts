import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertAccessible, eachStore, OWNER, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The Escalation policies pages in Debian's Chromium against a real `alertflow serve` process, on both stores:
 * an empty list, a policy refused in words (no member chosen), then made with two steps (a member, then an email
 * channel after 5 minutes), its detail, and deleted. Scanned with axe-core at 1280 px, at 390 px and in dark mode.
 * Also the main navigation at 390 px, folded behind its Menu button.
 */

const browser = sharedBrowser();

eachStore('escalation policies in the dashboard', { together: true }, (kind) => {
  const app = useDashboard(browser, kind);
  const shot = (name: string) => screenshot(app.page, `${kind}-escalations-${name}`);

  it('makes a two-step policy, after a refusal in words', async () => {
    await app.page.getByRole('link', { name: 'Escalation' }).click();
    await app.page.getByRole('heading', { name: 'Escalation policies', exact: true }).waitFor();
    await app.page.getByText('No escalation policies yet').waitFor();
    await assertAccessible(app.page, 'escalation policies (empty)');
    await shot('empty');

    await app.page.getByRole('button', { name: 'New policy' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Databases');
    await app.page.getByRole('button', { name: 'Create policy' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'Member must not be empty' }).first().waitFor();
    await assertAccessible(app.page, 'new policy form with an error');

    await app.page.getByLabel('Member').selectOption({ label: `${OWNER.name} <${OWNER.email}>` });
    await app.page.getByRole('button', { name: 'Add step' }).click();
    await app.page.getByLabel('Target 1: page').nth(1).selectOption('channel');
    await app.page.getByLabel('Email address').fill('team@example.test');
    await assertAccessible(app.page, 'new policy form, two steps');
    await shot('form');
    await app.page.getByRole('button', { name: 'Create policy' }).click();
    await app.page.getByRole('cell', { name: `at once: ${OWNER.name} <${OWNER.email}>; after 5 min: Email team@example.test` }).waitFor();
    await assertAccessible(app.page, 'escalation policies list');
    await shot('list');
  });

  it('shows the policy at 390 px and in dark mode, then deletes it', async () => {
    await app.page.getByRole('link', { name: 'Databases' }).click();
    await app.page.getByRole('heading', { name: 'Databases', exact: true }).waitFor();
    await app.page.getByText('Page Email team@example.test; then wait 5 min (the last step).').waitFor();
    await assertAccessible(app.page, 'policy detail');
    await app.page.setViewportSize({ width: 390, height: 800 });
    await assertAccessible(app.page, 'policy detail (390 px)');
    await shot('detail-390');
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'policy detail (dark)');
    await shot('detail-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await app.page.setViewportSize({ width: 1280, height: 800 });

    await app.page.getByRole('button', { name: 'Delete' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Delete policy' }).click();
    await app.page.getByText('No escalation policies yet').waitFor();
    assert.deepEqual(app.errors, []);
  });

  it('folds the navigation behind a Menu button at 390 px, which a chosen page closes again', async () => {
    const menu = app.page.getByRole('button', { name: 'Menu' });
    const link = app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' });
    assert.equal(await menu.isVisible(), false, 'no Menu button at 1280 px');
    assert.equal(await link.isVisible(), true);
    await app.page.setViewportSize({ width: 390, height: 800 });
    try {
      assert.equal(await link.isVisible(), false, 'the links are folded away at 390 px');
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      await menu.click();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await assertAccessible(app.page, 'open menu (390 px)');
      await shot('menu-390');
      await link.click();
      await app.page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
      assert.equal(await link.isVisible(), false, 'choosing a page closes the menu');
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    } finally {
      await app.page.setViewportSize({ width: 1280, height: 800 });
    }
    assert.deepEqual(app.errors, []);
  });
});
