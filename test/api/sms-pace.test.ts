import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pino from 'pino';
import { CursorCodec } from '../../src/lib/pagination.ts';
import { answersRepo } from '../../src/modules/notifications/answers-repo.ts';
import { notificationsRepo } from '../../src/modules/notifications/notifications-repo.ts';
import { DeliveryDeferred, notificationsService, type NotificationsDeps } from '../../src/modules/notifications/notifications-service.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';
import { startTwilioSim, twilioEnv, type TwilioSim } from '../support/twilio-sim.ts';

/**
 * One text a second per sending number (Twilio's long-code limit), as sent, not only as scheduled: texts queued
 * for slots one second apart, whose worker runs late (past two slots), still go one second apart; a burst queues,
 * each text once. On a real store; the pace clock is the test's.
 */

const NUMBERS = ['+4915100000031', '+4915100000032', '+4915100000033'];

eachStore('SMS pace per sending number', { together: true }, (kind) => {
  let h: Harness;
  let sim: TwilioSim;
  before(async () => {
    sim = await startTwilioSim({ publicUrl: 'http://alertflow.test' });
    h = await startHarness(kind, twilioEnv(sim));
    sim.appUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await h.close();
    await sim.close();
  });

  it('a worker that runs late still sends a second apart: the later slot waits its turn', async () => {
    let paceNow = Date.now();
    const deps: NotificationsDeps = {
      store: h.c.store, repo: notificationsRepo(h.c.store), alerts: h.c.alerts, clock: h.clock, cursors: new CursorCodec('test'), log: pino({ level: 'silent' }),
      answerRows: answersRepo(), paceClock: { now: () => paceNow },
      channels: { mailer: null, smtpFrom: 'alerts@alertflow.test', baseUrl: 'http://alertflow.test', userAgent: 'AlertFlow/test', outboundAllow: h.config.outboundAllow, webhookTimeoutMs: 2000, smtpTimeoutMs: 1000, providers: h.config.providers },
    };
    const svc = notificationsService(deps);
    const texts = await Promise.all(NUMBERS.map(async (number, i) => {
      const delivery = { channel: 'sms' as const, target: { number } };
      const { id } = await svc.prepareNotice(h.c.store.db, { orgId: h.org.id, source: 'test', key: `pace-${i}`, recipientId: null, delivery, notice: { event: 'channel.test', subject: 'Pace', text: `text ${i}` } });
      return { id, delivery };
    }));
    const attempt = async (i: number): Promise<'sent' | number> => {
      const t = texts[i]!;
      try {
        const n = await svc.deliver(t.id, t.delivery);
        assert.equal(n.status, 'sent', n.lastError ?? '');
        return 'sent';
      } catch (err) {
        if (!(err instanceof DeliveryDeferred)) throw err;
        assert.equal(err.exact, true);
        return err.retryAt - h.clock.now();
      }
    };

    // At once: the first goes, the others are given the next two slots.
    const start = paceNow;
    assert.equal(await attempt(0), 'sent');
    assert.equal(await attempt(1), 1000);
    assert.equal(await attempt(2), 2000);
    // The worker comes back late, past both slots: the second goes; the third, whose slot has passed too,
    // waits a second after it instead of following it at once.
    paceNow = start + 2500;
    assert.equal(await attempt(1), 'sent');
    assert.equal(await attempt(2), 1000);
    paceNow = start + 3500;
    assert.equal(await attempt(2), 'sent');
    assert.deepEqual(sim.messages.map((m) => m.to), NUMBERS, 'each once, in order');
    assert.deepEqual(sim.refusals, []);
    // Twilio's status callbacks come back to the app: all in before it closes.
    for (const t of texts) await eventually('the delivery report', async () => ((await deps.repo.get(h.c.store.db, t.id))?.provider_status === 'delivered' ? true : undefined));
  });
});
