import { Algorithm, hash, verify } from "@node-rs/argon2";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";

/** OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane). */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;
/** zxcvbn's scores run 0–4; 3 is "safely unguessable: moderate protection from an offline slow-hash scenario". */
const MIN_PASSWORD_SCORE = 3;

// Common and breached passwords, names, words, keyboard patterns and sequences, with English feedback.
const strength = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...english.dictionary },
  graphs: common.adjacencyGraphs,
  translations: english.translations,
  maxLength: MAX_PASSWORD_LENGTH,
});

/**
 * Why `password` is too easy to guess (zxcvbn's warning and suggestions), or undefined when it is not. The email is
 * among what it must not be made of.
 */
export function passwordWeakness(password: string, email: string): string | undefined {
  const { score, feedback } = strength.check(password, [email, email.split("@")[0] ?? ""]);
  if (score >= MIN_PASSWORD_SCORE) return undefined;
  const advice = [feedback.warning, ...feedback.suggestions].filter(Boolean).join(" ");
  return `is too easy to guess${advice ? `: ${advice}` : "."}`;
}

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
