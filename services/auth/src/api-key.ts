import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * Winnow API keys.
 *
 * Format (44 ASCII characters):
 *
 *     wnw_<key id>_<secret><checksum>
 *
 * - `wnw_`: fixed prefix, so secret scanners can recognise leaked keys;
 * - key id: 11 base62 characters encoding 64 random bits; public, it names
 *   the key in logs and dashboards;
 * - `_`: separator (like the prefix's, it keeps the key one "word" for
 *   double-click selection);
 * - secret: 22 base62 characters encoding 128 random bits;
 * - checksum: 6 base62 characters encoding the CRC32 of everything before it,
 *   so typos and truncations are rejected without a database lookup.
 *
 * Base62 digits are 0-9, A-Z, a-z; numbers are encoded big-endian, left-padded
 * with "0" to their fixed width. Keys are stored only as the SHA-256 of the
 * whole key: with 128 random bits a fast hash is enough.
 */
export interface ApiKey {
  /** The whole key; only ever shown to its owner. */
  readonly plaintext: string;
  /** The public key id. */
  readonly id: string;
  /** What is stored: hex SHA-256 of the plaintext. */
  readonly hash: string;
}

const PREFIX = "wnw_";
const ID_BYTES = 8;
const ID_LENGTH = 11;
const SECRET_BYTES = 16;
const SECRET_LENGTH = 22;
const CHECKSUM_LENGTH = 6;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const API_KEY_LENGTH = PREFIX.length + ID_LENGTH + 1 + SECRET_LENGTH + CHECKSUM_LENGTH;

const API_KEY_PATTERN = new RegExp(
  `^${PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_[0-9A-Za-z]{${SECRET_LENGTH}}([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

export function generateApiKey(): ApiKey {
  const id = toBase62(BigInt(`0x${randomBytes(ID_BYTES).toString("hex")}`), ID_LENGTH);
  const secret = toBase62(BigInt(`0x${randomBytes(SECRET_BYTES).toString("hex")}`), SECRET_LENGTH);
  const body = `${PREFIX}${id}_${secret}`;
  const plaintext = body + checksum(body);
  return { plaintext, id, hash: hashApiKey(plaintext) };
}

/** The key if `input` is a well-formed Winnow key with a matching checksum; undefined otherwise. */
export function parseApiKey(input: string): ApiKey | undefined {
  // The length check first keeps huge inputs away from the regex.
  if (input.length !== API_KEY_LENGTH) return undefined;
  const match = API_KEY_PATTERN.exec(input);
  if (!match) return undefined;
  const body = input.slice(0, -CHECKSUM_LENGTH);
  if (match[2] !== checksum(body)) return undefined;
  return { plaintext: input, id: match[1]!, hash: hashApiKey(input) };
}

export function hashApiKey(plaintext: string): string {
  return createHash("sha256").update(plaintext, "utf8").digest("hex");
}

function checksum(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** Fixed-width base62; `width` must be enough for the largest value encoded. */
function toBase62(value: bigint, width: number): string {
  let digits = "";
  for (let rest = value; rest > 0n; rest /= 62n) digits = BASE62[Number(rest % 62n)] + digits;
  return digits.padStart(width, "0");
}
