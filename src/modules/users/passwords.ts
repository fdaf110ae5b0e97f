import argon2 from 'argon2';

/** Hashing and checking members' passwords: the one place the hash's parameters are chosen. */
export interface Passwords {
  hash(password: string): Promise<string>;
  /** Whether `password` matches `hash`; the hash carries its own parameters, so older hashes keep working. */
  verify(hash: string, password: string): Promise<boolean>;
}

/**
 * Argon2id with argon2's defaults (3 passes, 4 lanes) over `memoryKib` of memory: 64 MiB unless the operator set
 * PASSWORD_HASH_MEMORY_KIB (docs/operating.md, "Configuration (environment, validated at start)"). A hash's CPU
 * is mostly that memory; the test suite lowers it, as it shortens escalation minutes, because it sets up an owner
 * with a password and signs in for nearly every test.
 */
export function passwords(memoryKib: number): Passwords {
  const options = { type: argon2.argon2id, memoryCost: memoryKib } as const;
  return {
    hash: (password) => argon2.hash(password, options),
    verify: (hash, password) => argon2.verify(hash, password),
  };
}
