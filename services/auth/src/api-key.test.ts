import { describe, expect, it } from "vitest";
import { API_KEY_LENGTH, generateApiKey, hashApiKey, parseApiKey } from "./api-key.js";

describe("generateApiKey", () => {
  it("makes prefixed, fixed-length, base62 keys that parse back to themselves", () => {
    const key = generateApiKey();
    expect(key.plaintext).toMatch(/^wnw_[0-9A-Za-z]{11}_[0-9A-Za-z]{28}$/);
    expect(key.plaintext).toHaveLength(API_KEY_LENGTH);
    expect(key.plaintext.slice(4, 15)).toBe(key.id);
    expect(key.hash).toBe(hashApiKey(key.plaintext));
    expect(parseApiKey(key.plaintext)).toEqual(key);
  });

  it("never repeats a key or a key id", () => {
    const keys = Array.from({ length: 1000 }, generateApiKey);
    expect(new Set(keys.map((k) => k.plaintext)).size).toBe(1000);
    expect(new Set(keys.map((k) => k.id)).size).toBe(1000);
  });
});

describe("hashApiKey", () => {
  it("is the hex SHA-256 of the whole key", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("parseApiKey", () => {
  const valid = generateApiKey().plaintext;

  it("rejects any single changed character, the checksum catching those the pattern allows", () => {
    for (let i = 0; i < valid.length; i++) {
      const replacement = valid[i] === "x" ? "y" : "x";
      expect(parseApiKey(valid.slice(0, i) + replacement + valid.slice(i + 1)), `position ${i}`).toBeUndefined();
    }
  });

  it("rejects two swapped neighbouring characters", () => {
    const at = [...valid].findIndex((char, i) => i >= 16 && char !== valid[i + 1]);
    const swapped = valid.slice(0, at) + valid[at + 1] + valid[at] + valid.slice(at + 2);
    expect(parseApiKey(swapped)).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["whitespace", " ".repeat(API_KEY_LENGTH)],
    ["the prefix alone", "wnw_"],
    ["truncated", valid.slice(0, -1)],
    ["extended", `${valid}0`],
    ["huge", `${valid}${"a".repeat(1_000_000)}`],
    ["surrounded by spaces", ` ${valid.slice(1, -1)} `],
    ["a wrong prefix", `ghp_${valid.slice(4)}`],
    ["an upper-case prefix", `WNW_${valid.slice(4)}`],
    ["no separator", `${valid.slice(0, 15)}0${valid.slice(16)}`],
    ["a non-ASCII character", `${valid.slice(0, 20)}é${valid.slice(21)}`],
    ["an astral character", `${valid.slice(0, 20)}😀${valid.slice(22)}`],
    ["a full-width digit", `${valid.slice(0, 20)}１${valid.slice(21)}`],
    ["a NUL byte", `${valid.slice(0, 20)}\0${valid.slice(21)}`],
    ["a newline", `${valid.slice(0, -1)}\n`],
  ])("rejects %s", (_, input) => {
    expect(parseApiKey(input)).toBeUndefined();
  });
});
