import { describe, expect, it } from 'vitest';
import { answerText, deliveryStatus } from './delivery-fns';

describe('the delivery log in words', () => {
  it('says who answered a page, and how, whatever came of it', () => {
    expect(answerText({ action: 'acknowledge', outcome: 'done', via: 'SMS reply from +4915100000001' })).toBe('Acknowledged by SMS reply from +4915100000001');
    expect(answerText({ action: 'resolve', outcome: 'done', via: 'key 6 on a call to +4915100000002' })).toBe('Resolved by key 6 on a call to +4915100000002');
    expect(answerText({ action: 'acknowledge', outcome: 'already', via: 'Slack button pressed by mia@acme.test' })).toBe('Slack button pressed by mia@acme.test: already acknowledged, nothing changed');
    expect(answerText({ action: 'resolve', outcome: 'gone', via: 'SMS reply from +49151' })).toBe('SMS reply from +49151: the incident no longer exists');
  });

  it('shows the provider\'s report beside ours, and the reason of a failure', () => {
    expect(deliveryStatus({ status: 'sent', providerStatus: 'delivered', lastError: null })).toBe('sent · delivered');
    expect(deliveryStatus({ status: 'failed', providerStatus: 'no-answer', lastError: 'The call was not answered (no-answer)' })).toBe('failed · no-answer (The call was not answered (no-answer))');
    expect(deliveryStatus({ status: 'sent', providerStatus: null, lastError: null })).toBe('sent');
  });
});
