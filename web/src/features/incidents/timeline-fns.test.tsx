import { describe, expect, it } from 'vitest';
import openapi from '../../../openapi.json';
import { describeEntry, TIMELINE_TEXT, type TimelineType } from './timeline-fns';

/** The entry types the served OpenAPI document says GET /incidents/{id} can return (not a copy kept by hand). */
function documentedTypes(): string[] {
  const doc = openapi as unknown as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: any }> }> } }> };
  const schema = doc.paths['/incidents/{id}']!.get.responses['200']!.content['application/json']!.schema;
  return schema.properties.data.properties.timeline.items.properties.type.enum as string[];
}

const names = { user: (id: string) => (id === 'usr_1' ? 'Olga' : `user ${id}`), schedule: (id: string) => (id === 'sch_1' ? 'Primary' : id), alert: () => 'Disk full' };

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
});
