import { principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { NotificationList, NotificationListQuery } from './notifications-schemas.ts';
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
}
