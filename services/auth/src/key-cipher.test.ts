import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateApiKey } from "./api-key.js";
import { silentLogger } from "./databases.test-helpers.js";
import { decodeEncryptionKey, ENCRYPTION_KEY_FILE, KeyCipher, loadKeyCipher } from "./key-cipher.js";

describe("KeyCipher", () => {
  const cipher = new KeyCipher(randomBytes(32));
  const key = generateApiKey();

  it("opens what it sealed, with a fresh IV every time", () => {
    const sealed = cipher.seal(key.plaintext, key.id);
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(sealed).not.toContain(key.plaintext);
    expect(cipher.seal(key.plaintext, key.id)).not.toBe(sealed);
    expect(cipher.open(sealed, key.id)).toBe(key.plaintext);
  });

  it("refuses a ciphertext opened for another key id, tampered with, or sealed under another key", () => {
    const sealed = cipher.seal(key.plaintext, key.id);
    expect(() => cipher.open(sealed, generateApiKey().id)).toThrow();
    const parts = sealed.split(".");
    parts[3] = Buffer.from(Buffer.from(parts[3]!, "base64url").map((byte, i) => (i === 0 ? byte ^ 1 : byte))).toString(
      "base64url",
    );
    expect(() => cipher.open(parts.join("."), key.id)).toThrow();
    expect(() => new KeyCipher(randomBytes(32)).open(sealed, key.id)).toThrow();
    expect(() => cipher.open("garbage", key.id)).toThrow("not a sealed API key");
  });
});

describe("KeyCipher across a rotation", () => {
  it("opens what a previous key sealed, seals with the current one, and says which values to seal anew", () => {
    const [older, newer] = [randomBytes(32), randomBytes(32)];
    const key = generateApiKey();
    const sealedBefore = new KeyCipher(older).seal(key.plaintext, key.id);
    const rotating = new KeyCipher(newer, [older]);
    expect(rotating.rotating).toBe(true);
    expect(rotating.open(sealedBefore, key.id)).toBe(key.plaintext);
    const resealed = rotating.resealed(sealedBefore, key.id);
    expect(resealed).toBeDefined();
    expect(new KeyCipher(newer).open(resealed!, key.id)).toBe(key.plaintext);
    expect(rotating.resealed(resealed!, key.id)).toBeUndefined();
    expect(() => new KeyCipher(newer).open(sealedBefore, key.id)).toThrow(/none of the encryption keys/);
  });
});

describe("decodeEncryptionKey", () => {
  const bytes = randomBytes(32);
  it.each([
    ["hex", bytes.toString("hex")],
    ["base64", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
  ])("accepts 32 bytes as %s", (_, text) => {
    expect(decodeEncryptionKey(` ${text}\n`)).toEqual(bytes);
  });

  it.each([
    ["16 bytes", randomBytes(16).toString("base64")],
    ["33 bytes of hex", randomBytes(33).toString("hex")],
    ["a passphrase", "correct horse battery staple and more words to be long"],
    ["empty", ""],
  ])("refuses %s", (_, text) => {
    expect(decodeEncryptionKey(text)).toBeUndefined();
  });
});

describe("loadKeyCipher", () => {
  let dataDir: string | undefined;
  afterEach(() => (dataDir ? rm(dataDir, { recursive: true, force: true }) : undefined));

  it("generates an owner-only key file once and reuses it", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-cipher-"));
    const key = generateApiKey();
    const first = await loadKeyCipher({ configured: undefined, dataDir, logger: silentLogger });
    const file = path.join(dataDir, ENCRYPTION_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(decodeEncryptionKey(await readFile(file, "utf8"))).toHaveLength(32);
    const again = await loadKeyCipher({ configured: undefined, dataDir, logger: silentLogger });
    expect(again.open(first.seal(key.plaintext, key.id), key.id)).toBe(key.plaintext);
  });

  it("uses the configured key and writes no file", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-cipher-"));
    const configured = randomBytes(32);
    const key = generateApiKey();
    const cipher = await loadKeyCipher({ configured: [configured], dataDir, logger: silentLogger });
    expect(new KeyCipher(configured).open(cipher.seal(key.plaintext, key.id), key.id)).toBe(key.plaintext);
    await expect(stat(path.join(dataDir, ENCRYPTION_KEY_FILE))).rejects.toThrow();
  });

  it("refuses a damaged key file rather than replacing it", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-cipher-"));
    await writeFile(path.join(dataDir, ENCRYPTION_KEY_FILE), "not a key\n");
    await expect(loadKeyCipher({ configured: undefined, dataDir, logger: silentLogger })).rejects.toThrow(
      /WINNOW_ENCRYPTION_KEY/,
    );
  });
});
