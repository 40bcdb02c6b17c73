import { describe, expect, it } from "vitest";
import type { ModelContent } from "./content.js";
import { splitContent } from "./parts.js";
import { countTokens } from "./tokens.js";

function content(sections: string[]): ModelContent {
  const header = "Title: Long page\nURL: https://a.example/";
  return { header, sections, text: [header, ...sections].join("\n\n") };
}

const section = (n: number, words: number) =>
  `## Section ${n}\n\n${Array.from({ length: words }, (_, i) => `word${n}x${i}`).join(" ")}`;

describe("splitContent", () => {
  it("keeps a page under the budget whole", () => {
    const page = content([section(1, 20)]);
    expect(splitContent(page, 1_000, 8)).toEqual({ parts: [page.text], warnings: [], whole: true });
  });

  it("splits on section boundaries under the budget, repeating the header", () => {
    const page = content([1, 2, 3, 4].map((n) => section(n, 60)));
    const { parts, warnings } = splitContent(page, 300, 8);
    expect(warnings).toEqual([]);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(countTokens(part)).toBeLessThanOrEqual(300);
      expect(part.startsWith(page.header)).toBe(true);
      // Whole sections: every part starts a section right after the header.
      expect(part.slice(page.header.length + 2)).toMatch(/^## Section \d/);
    }
    expect(parts.join("\n")).toContain("word4x59");
  });

  it("cuts a section larger than the budget at paragraphs, lines and words", () => {
    const page = content([`## Huge\n\n${"alpha beta gamma delta ".repeat(400)}`]);
    const { parts } = splitContent(page, 200, 100);
    expect(parts.length).toBeGreaterThan(5);
    for (const part of parts) expect(countTokens(part)).toBeLessThanOrEqual(200);
  });

  it("reads at most maxParts parts and says the rest was left out", () => {
    const page = content([1, 2, 3, 4, 5, 6].map((n) => section(n, 100)));
    const { parts, warnings } = splitContent(page, 150, 2);
    expect(parts).toHaveLength(2);
    expect(warnings).toEqual([expect.objectContaining({ code: "content-truncated" })]);
  });

  it("never cuts a record that fits a part: parts end at record boundaries", () => {
    const record = (n: number) =>
      `### Item ${n}\n\n${Array.from({ length: 25 }, (_, i) => `w${n}x${i}`).join(" ")}\n\nprice ${n}`;
    const records = Array.from({ length: 40 }, (_, n) => record(n));
    const page = content(["intro text", ...records]);
    const { parts } = splitContent(page, 400, 100);
    expect(parts.length).toBeGreaterThan(3);
    const body = parts.map((part) => part.slice(page.header.length + 2)).join("\n\n");
    for (const r of records) expect(parts.filter((part) => part.includes(r)).length).toBe(1);
    expect(body).toContain(records.at(-1));
  });
});
