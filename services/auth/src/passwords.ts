import { Algorithm, hash, verify } from "@node-rs/argon2";

/** OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane). */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Checked against when the email is unknown, so an unknown email takes as
// long as a wrong password and timing does not reveal which accounts exist.
let decoyHash: Promise<string> | undefined;

/** True when `password` matches `stored`; an absent hash still costs one verification. */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  decoyHash ??= hashPassword("winnow decoy password");
  // argon2's verify compares the derived hashes in constant time.
  const matches = await verify(stored ?? (await decoyHash), password);
  return stored !== undefined && matches;
}
