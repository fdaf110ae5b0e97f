import { principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { ChannelCatalogue, NotificationList, NotificationListQuery } from './notifications-schemas.ts';
import type { NotificationsService } from './notifications-service.ts';

export function notificationsRoutes(app: Api, notifications: NotificationsService): void {
  app.get('/alerts/:id/notifications', {
    config: { scope: 'alerts:read' },
    schema: apiSchema({
      scope: 'alerts:read',
      tag: 'alerts',
      summary: 'List an alert\'s notifications',
      description: 'The delivery log of the alert: every email and webhook its workflows sent or tried to send, newest first, with status (`pending` while retries remain, `sent`, `failed`), attempts, the last error and the last response status.',
    }, { params: IdParams, querystring: NotificationListQuery, response: { 200: NotificationList } }),
  }, (req) => notifications.listForAlert(principalOf(req).orgId, req.params.id, req.query));

  app.get('/channels', {
    // Every member draws their contact methods' forms from it: every role holds users:read.
    config: { scope: 'users:read' },
    schema: apiSchema({
      scope: 'users:read',
      tag: 'channels',
      summary: 'List the notification channels',
      description: 'Every channel AlertFlow can page by, as its declaration in the channel registry says: its name, where it may be used (contact methods, escalation steps, workflow `notify` actions), the fields of its target (which are secrets, which are URLs), and whether it can send now (a channel whose provider the operator has not configured cannot).',
    }, { response: { 200: ChannelCatalogue } }),
  }, () => ({ data: notifications.catalogue() }));
}
