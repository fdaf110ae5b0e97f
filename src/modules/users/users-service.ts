import argon2 from 'argon2';
import type { Store } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { UserRow, UsersRepo } from './users-repo.ts';
import type { Role, User } from './users-schemas.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role as Role,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export function usersService(deps: { store: Store; repo: UsersRepo; clock: Clock; cursors: CursorCodec }) {
  const { store, repo, clock, cursors } = deps;
  return {
    /** Adds a member; `db` lets organization creation add its owner in the same transaction. */
    async add(orgId: string, input: { email: string; name: string; role: Role; password?: string | undefined }, db = store.db): Promise<User> {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) throw new AppError('VALIDATION_ERROR', 'Invalid email', [{ path: '/email', message: 'must be an email address' }]);
      const now = clock.now();
      const row: UserRow = {
        id: newId('usr'),
        org_id: orgId,
        email,
        name: input.name.trim() || email,
        role: input.role,
        password_hash: input.password ? await argon2.hash(input.password, { type: argon2.argon2id }) : null,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insert(db, row);
      } catch (err) {
        if (/unique|duplicate/i.test(String((err as Error).message))) throw new AppError('CONFLICT', `A user with email ${email} already exists`);
        throw err;
      }
      return toUser(row);
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<User>> {
      return paginate(cursors, `${orgId}:users`, query, (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toUser);
    },
  };
}
export type UsersService = ReturnType<typeof usersService>;
