import type { Store } from './database.ts';

/** The values of a statement written out as SQL text: `add` binds one and returns its placeholder in the text. */
export interface SqlParams {
  readonly values: unknown[];
  add(value: unknown): string;
}

export function sqlParams(store: Pick<Store, 'param'>): SqlParams {
  const values: unknown[] = [];
  return {
    values,
    add: (value) => {
      values.push(value);
      return store.param(values.length);
    },
  };
}
