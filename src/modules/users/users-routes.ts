import { principalOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { UserList, UserListQuery } from './users-schemas.ts';
import type { UsersService } from './users-service.ts';

export function usersRoutes(app: Api, users: UsersService): void {
  app.get('/users', {
    config: { scope: 'users:read' },
    schema: apiSchema({ scope: 'users:read', tag: 'users', summary: 'List organization members' }, { querystring: UserListQuery, response: { 200: UserList } }),
  }, (req) => users.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));
}
