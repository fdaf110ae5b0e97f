import { useMemo } from 'react';
import type { User } from '../../api/types';
import { useUsers } from './schedules-api';

const TONES = 6;

/** The organization's people, and how a schedule shows one: by name (the id when unknown) and with a stable colour cue. */
export function usePeople() {
  const users = useUsers();
  return useMemo(() => {
    const list: User[] = users.data?.data ?? [];
    const byId = new Map(list.map((u, i) => [u.id, { name: u.name, tone: i % TONES }]));
    return {
      users: list,
      error: users.error,
      nameOf: (id: string) => byId.get(id)?.name ?? id,
      toneOf: (id: string) => byId.get(id)?.tone ?? 0,
    };
  }, [users.data, users.error]);
}
