import { describe, expect, it } from 'vitest';
import { channelsFor } from '../../api/channels';
import { CATALOGUE } from '../../api/channels-fixture';
import { cleanTargets, describeSteps, retarget } from './escalations-fns';

const names = { users: new Map([['usr_1', 'Olga']]), schedules: new Map([['sch_1', 'Primary']]), channels: CATALOGUE };

describe('escalation policy helpers', () => {
  it('describes the steps with the minutes from the start; a channel by its name and plain fields, never its URLs or secrets', () => {
    expect(describeSteps([
      { delayMinutes: 5, targets: [{ type: 'schedule', id: 'sch_1' }] },
      { delayMinutes: 10, targets: [{ type: 'channel', channel: 'slack', target: { webhookUrl: 'https://x' } }, { type: 'user', id: 'usr_1' }] },
      { delayMinutes: 0, targets: [{ type: 'user', id: 'usr_9' }, { type: 'channel', channel: 'ntfy', target: { serverUrl: 'https://n', topic: 'ops', token: 't' } }] },
    ], names)).toBe('at once: on-call of Primary; after 5 min: Slack (incoming webhook), Olga; after 15 min: user usr_9, ntfy push ops');
  });

  it('leaves out empty optional channel fields, keeps empty required ones for the API to name', () => {
    const [step] = cleanTargets([{ delayMinutes: 0, targets: [{ type: 'channel', channel: 'ntfy', target: { serverUrl: '', topic: 'ops', token: '' } }] }], CATALOGUE);
    expect(step?.targets[0]).toEqual({ type: 'channel', channel: 'ntfy', target: { serverUrl: '', topic: 'ops' } });
  });

  it('a new kind of target starts blank; a channel target as the first channel a step may post to', () => {
    expect(retarget('channel', channelsFor(CATALOGUE, 'escalation'))).toEqual({ type: 'channel', channel: 'email', target: { to: '' } });
    expect(retarget('schedule', [])).toEqual({ type: 'schedule', id: '' });
  });
});
