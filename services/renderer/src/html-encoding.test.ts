import { describe, expect, it } from "vitest";
import { charsetLabel, decodeDocument, sniffEncoding } from "./html-encoding.js";

const utf8 = (text: string) => Buffer.from(text, "utf8");

describe("sniffing a document's encoding", () => {
  it("detects UTF-8 from valid UTF-8 bytes when nothing labels them", () => {
    expect(sniffEncoding(utf8("<p>Christian Ruß</p>"), undefined)).toEqual({ encoding: "UTF-8", detected: true });
    expect(decodeDocument(utf8("<p>Christian Ruß</p>"), undefined)).toBe("<p>Christian Ruß</p>");
  });

  it("keeps the windows-1252 default for bytes that are not UTF-8", () => {
    const latin1 = Buffer.from("<p>Christian Ruß</p>", "latin1");
    expect(sniffEncoding(latin1, undefined)).toEqual({ encoding: "windows-1252", detected: false });
    expect(decodeDocument(latin1, undefined)).toBe("<p>Christian Ruß</p>");
  });

  it("lets a label outrank the content: the header's charset, then a <meta charset>", () => {
    expect(decodeDocument(utf8("<p>Ruß</p>"), "iso-8859-1")).toBe("<p>RuÃŸ</p>"); // iso-8859-1 is windows-1252 to the standard;
    expect(decodeDocument(utf8('<meta charset="windows-1252"><p>Ruß</p>'), undefined)).toContain("RuÃŸ");
    expect(sniffEncoding(utf8('<meta charset="windows-1252">'), undefined).detected).toBe(false);
  });

  it("reads a Content-Type's charset parameter", () => {
    expect(charsetLabel('text/html; charset="UTF-8"')).toBe("UTF-8");
    expect(charsetLabel("text/html")).toBeUndefined();
  });
});
