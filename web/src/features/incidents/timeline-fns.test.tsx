import { describe, expect, it } from 'vitest';
import openapi from '../../../openapi.json';
import { describeEntry, duration, TIMELINE_TEXT, type TimelineType } from './timeline-fns';

/** The entry types the served OpenAPI document says GET /incidents/{id} can return (not a copy kept by hand). */
function documentedTypes(): string[] {
  const doc = openapi as unknown as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: any }> }> } }> };
  const schema = doc.paths['/incidents/{id}']!.get.responses['200']!.content['application/json']!.schema;
  return schema.properties.data.properties.timeline.items.properties.type.enum as string[];
}

const names = {
  user: (id: string) => (id === 'usr_1' ? 'Olga' : `user ${id}`), schedule: (id: string) => (id === 'sch_1' ? 'Primary' : id), alert: () => 'Disk full',
  time: (iso: string) => iso.slice(11, 16),
};

describe('the incident timeline in words', () => {
  it('has words for every entry type of the OpenAPI document, even with no data', () => {
    const types = documentedTypes();
    expect(types.length).toBeGreaterThan(5);
    for (const type of types) {
      expect(TIMELINE_TEXT, `no rendering for "${type}"`).toHaveProperty(type);
      const { text } = describeEntry({ type: type as TimelineType, data: {} }, names);
      expect(text.length, type).toBeGreaterThan(5);
      expect(text, type).not.toMatch(/undefined|\[object|NaN/);
    }
  });

  it('says who a step paged, how, at which step, and when the next comes', () => {
    const { text } = describeEntry({
      type: 'escalation_step',
      data: {
        step: 2, round: 1, nextStepInMinutes: 5,
        paged: [
          { target: 'user', userId: 'usr_1', via: ['email olga@example.test', 'sms after 3 min'] },
          { target: 'schedule', scheduleId: 'sch_1', userId: null, via: [], note: 'nobody on call' },
          { target: 'channel', channel: 'slack', via: ['slack hooks.slack.com'] },
        ],
      },
    }, names);
    expect(text).toBe('Escalation step 2 paged Olga (email olga@example.test, sms after 3 min); nobody: no one is on call in Primary; '
      + 'the slack channel (slack hooks.slack.com). Next step in 5 minutes unless acknowledged.');
  });

  it('says why an escalation stopped, and who a page went to', () => {
    expect(describeEntry({ type: 'escalation_stopped', data: { reason: 'acknowledged' } }, names).text).toBe('Escalation stopped: the incident was acknowledged');
    expect(describeEntry({ type: 'escalation_stopped', data: { reason: 'incident_resolved' } }, names).text).toBe('Escalation stopped: the incident was resolved');
    expect(describeEntry({ type: 'notification_sent', data: { source: 'escalation', channel: 'email', target: 'olga@example.test', recipientId: 'usr_1', step: 1, attempts: 1 } }, names).text)
      .toBe('Paged Olga by email at olga@example.test (escalation step 1)');
    expect(describeEntry({ type: 'escalation_started', data: { policyName: 'Databases' } }, names).text).toBe('Escalation started: policy “Databases”');
  });

  it('says what working the incident did: escalate now, responders, snooze', () => {
    expect(describeEntry({ type: 'escalated', data: { step: 2, round: 1, policyName: 'Ops' } }, names).text).toBe('Escalated now: step 2 of “Ops” pages at once');
    expect(describeEntry({ type: 'responder_added', data: { userId: 'usr_1' } }, names).text).toBe('Asked Olga to respond: paging them now');
    expect(describeEntry({ type: 'responder_added', data: { policyName: 'Backup', started: true } }, names).text).toBe('Added the policy “Backup”: the incident escalates with it from step 1');
    expect(describeEntry({ type: 'snoozed', data: { minutes: 90, until: '2026-11-21T11:30:00.000Z' } }, names).text)
      .toBe('Snoozed for 1 hour 30 minutes, until 11:30: it is triggered and pages again then, unless answered');
    expect(describeEntry({ type: 'status_changed', data: { from: 'acknowledged', to: 'triggered', reason: 'snooze_ended' } }, names).text)
      .toBe('Status changed from acknowledged to triggered: the snooze ended');
    expect(duration(1440)).toBe('1 day');
    expect(duration(1)).toBe('1 minute');
  });
});
