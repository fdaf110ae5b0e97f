import type { ChannelInfo } from './types';

/** A catalogue as `GET /channels` answers it, for the tests of the forms built from it. */
const field = (name: string, label: string, over: Partial<ChannelInfo['fields'][number]> = {}): ChannelInfo['fields'][number] =>
  ({ name, label, hint: `${label}.`, required: true, secret: false, url: false, maxLength: 2048, pattern: null, format: null, ...over });

export const CATALOGUE: ChannelInfo[] = [
  { type: 'email', label: 'Email', about: 'An email.', uses: ['contact', 'escalation'], available: true, unavailable: null, linked: false, verified: false, fields: [field('to', 'Email address', { format: 'email' })] },
  { type: 'webhook', label: 'Webhook', about: 'A JSON POST.', uses: ['contact', 'escalation'], available: true, unavailable: null, linked: false, verified: false, fields: [field('url', 'URL', { url: true }), field('secret', 'Signing secret', { required: false, secret: true })] },
  { type: 'slack', label: 'Slack (incoming webhook)', about: 'A message.', uses: ['contact', 'escalation', 'workflow'], available: true, unavailable: null, linked: false, verified: false, fields: [field('webhookUrl', 'Incoming webhook URL', { url: true })] },
  {
    type: 'ntfy', label: 'ntfy push', about: 'A push.', uses: ['contact', 'escalation', 'workflow'], available: true, unavailable: null, linked: false, verified: false,
    fields: [field('serverUrl', 'Server URL', { url: true }), field('topic', 'Topic'), field('token', 'Access token', { required: false, secret: true })],
  },
];
