import { parseList, Token } from "structured-headers";
import { describe, expect, it } from "vitest";
import { fieldStatusHeader, warningsHeader } from "./field-status.js";

describe("status headers", () => {
  it("lists the fields that are not found, as an RFC 8941 list a parser reads back", () => {
    const header = fieldStatusHeader([
      { pointer: "/title", status: "found" },
      { pointer: "/summary", status: "needs-model" },
      { pointer: '/a "quoted" \\ key', status: "unverified" },
    ]);
    expect(header).toBe('"/summary";status=needs-model, "/a%20%22quoted%22%20%5C%20key";status=unverified');
    expect(parseList(header!).map(([value, params]) => [value, String(params.get("status"))])).toEqual([
      ["/summary", "needs-model"],
      ["/a%20%22quoted%22%20%5C%20key", "unverified"],
    ]);
    expect(fieldStatusHeader([{ pointer: "/title", status: "found" }])).toBeUndefined();
  });

  it("percent-encodes what a header cannot hold, a lone surrogate included", () => {
    expect(fieldStatusHeader([{ pointer: "/größe\ud800", status: "absent" }])).toBe(
      '"/gr%C3%B6%C3%9Fe%EF%BF%BD";status=absent',
    );
  });

  it("bounds the list, and counts what it left out", () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ pointer: `/field_${i}`, status: "absent" }));
    const members = parseList(fieldStatusHeader(many)!);
    expect(members).toHaveLength(33);
    expect(members.at(-1)).toEqual([new Token("*"), new Map([["omitted", 68]])]);
    const long = Array.from({ length: 10 }, (_, i) => ({ pointer: `/${"x".repeat(500)}${i}`, status: "absent" }));
    const header = fieldStatusHeader(long)!;
    expect(header.length).toBeLessThan(2100);
    expect(parseList(header).at(-1)?.[1].get("omitted")).toBe(7);
  });

  it("lists each warning's code, with the pointer of the value it names", () => {
    expect(
      warningsHeader([
        { code: "content-truncated", message: "part 3 of 3 was not read", path: "" },
        { code: "ungrounded", message: "49.5 was not found on the page", path: "/price" },
      ]),
    ).toBe('content-truncated, ungrounded;path="/price"');
    expect(warningsHeader([])).toBeUndefined();
  });
});
