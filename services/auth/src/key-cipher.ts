import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import path from "node:path";
import { type Logger, readSecretFile, writeSecretFile } from "@winnow/platform";

/** The file under the data directory holding the generated encryption key (embedded default). */
export const ENCRYPTION_KEY_FILE = "encryption-key";

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";

/**
 * AES-256-GCM for API keys at rest, so the dashboard can show a key again.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url). The key id is the
 * additional authenticated data: a ciphertext copied onto another key's row
 * fails to open instead of showing the wrong key. While the encryption key
 * rotates, values sealed under a previous key still open, and `resealed`
 * moves them to the current one.
 */
export class KeyCipher {
  private readonly keys: readonly Buffer[];

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.keys = [current, ...previous];
    if (this.keys.some((key) => key.length !== KEY_BYTES))
      throw new Error(`the encryption key must be ${KEY_BYTES} bytes`);
  }

  /** Whether a previous key is configured beside the current one (a rotation under way). */
  get rotating(): boolean {
    return this.keys.length > 1;
  }

  seal(plaintext: string, keyId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.keys[0] as Buffer, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(keyId, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** The plaintext; throws when the sealed value was not made with one of the keys for this key id. */
  open(sealed: string, keyId: string): string {
    return this.opened(sealed, keyId).plaintext;
  }

  /**
   * The value sealed anew under the current key when it was sealed under a previous one; undefined when it is
   * already current. Throws as `open` does.
   */
  resealed(sealed: string, keyId: string): string | undefined {
    const { plaintext, current } = this.opened(sealed, keyId);
    return current ? undefined : this.seal(plaintext, keyId);
  }

  private opened(sealed: string, keyId: string): { plaintext: string; current: boolean } {
    const [version, iv, tag, ciphertext] = sealed.split(".");
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
      throw new Error("not a sealed API key");
    }
    for (const [index, key] of this.keys.entries()) {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(keyId, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      try {
        const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]);
        return { plaintext: plaintext.toString("utf8"), current: index === 0 };
      } catch {
        // Not this key's: the next one may open it.
      }
    }
    throw new Error("the sealed value opens under none of the encryption keys");
  }
}

/** 32 bytes from 64 hex digits or from base64 (standard or url-safe); undefined for anything else. */
export function decodeEncryptionKey(value: string): Buffer | undefined {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.length === KEY_BYTES ? bytes : undefined;
}

export interface LoadKeyCipherOptions {
  /** WINNOW_ENCRYPTION_KEY, already decoded: the current key, then any previous ones. */
  configured: readonly Buffer[] | undefined;
  dataDir: string;
  logger: Logger;
  /** A stack with the dev account (`npm start`) expects a generated key: said at info, not as a warning. */
  devAccount?: boolean;
}

/**
 * The configured key, else the one generated under the data directory on
 * first start and reused after (losing it makes stored keys unreadable:
 * their owners must rotate).
 */
export async function loadKeyCipher({
  configured,
  dataDir,
  logger,
  devAccount = false,
}: LoadKeyCipherOptions): Promise<KeyCipher> {
  if (configured) return new KeyCipher(configured[0] as Buffer, configured.slice(1));
  const file = path.join(dataDir, ENCRYPTION_KEY_FILE);
  const kept = await readSecretFile(file);
  if (kept !== undefined) {
    const key = decodeEncryptionKey(kept);
    if (!key)
      throw new Error(`${file} does not hold a 32-byte key (base64 or hex); restore it or set WINNOW_ENCRYPTION_KEY`);
    return new KeyCipher(key);
  }
  const key = randomBytes(KEY_BYTES);
  await writeSecretFile(file, `${key.toString("base64")}\n`);
  logger[devAccount ? "info" : "warn"](
    { file },
    "generated an encryption key for API keys at rest; set WINNOW_ENCRYPTION_KEY in production",
  );
  return new KeyCipher(key);
}
