/** Long lists of an answer cut into bounded pages behind cursors: every item once, what is said of it beside it. */
import { AnswerPages, MARKDOWN_POINTER } from "@winnow/client/mcp";
import { describe, expect, it } from "vitest";

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `item ${i}` }));

function pager(now = { ms: 0 }, store = {}) {
  return new AnswerPages(
    { items: 10, bytes: 10_000 },
    { ttlMs: 60_000, answersPerScope: 2, totalBytes: 1_000_000, ...store },
    () => now.ms,
  );
}

/** Every item of the list at lists[0], following its cursors. */
function readAll(pages: AnswerPages, scope: string, first: unknown[], cursor: string | null): unknown[] {
  const all = [...first];
  while (cursor !== null) {
    const page = pages.read(scope, cursor);
    expect(page.offset).toBe(all.length);
    all.push(...page.items);
    cursor = page.next_cursor;
  }
  return all;
}

describe("AnswerPages", () => {
  it("leaves an answer whose lists fit one page as it is", () => {
    const answer = { data: { a: items(10), b: "x" }, status: { "/b": "found" }, warnings: [] };
    expect(pager().split("", answer)).toEqual({ answer, lists: [] });
  });

  it("cuts each long list, nested ones too, to its first page, and the cursors read every other item once", () => {
    const pages = pager();
    const data = { products: items(25), shop: { reviews: items(11) }, title: "t" };
    const { answer, lists } = pages.split("", { data, status: {}, warnings: [] });
    expect(lists.map(({ pointer, total, returned }) => [pointer, total, returned])).toEqual([
      ["/products", 25, 10],
      ["/shop/reviews", 11, 10],
    ]);
    const first = answer.data as typeof data;
    expect(first.title).toBe("t");
    expect(readAll(pages, "", first.products, lists[0]!.next_cursor)).toEqual(data.products);
    expect(readAll(pages, "", first.shop.reviews, lists[1]!.next_cursor)).toEqual(data.shop.reviews);
    // The caller's answer is not changed.
    expect(data.products).toHaveLength(25);
  });

  it("cuts a long markdown at a line's end, its later lines read by cursor, every line once", () => {
    const pages = pager();
    const markdown = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n");
    const split = pages.split("", { data: { title: "t" }, status: {}, warnings: [] }, markdown);
    expect(split.answer.data).toEqual({ title: "t" });
    expect(new TextEncoder().encode(split.markdown!).length).toBeLessThanOrEqual(10_000);
    const [paging] = split.lists;
    expect(paging!.pointer).toBe(MARKDOWN_POINTER);
    const lines = readAll(pages, "", split.markdown!.split("\n"), paging!.next_cursor);
    expect(lines.join("\n")).toBe(markdown);
    // A short one is answered whole, with no cursor.
    expect(pages.split("", { data: {}, status: {}, warnings: [] }, "# short")).toMatchObject({
      markdown: "# short",
      lists: [],
    });
  });

  it("cuts a page by bytes too, an item larger than a page being a page of its own", () => {
    const pages = new AnswerPages(
      { items: 100, bytes: 50 },
      { ttlMs: 1, answersPerScope: 1, totalBytes: 1e6 },
      () => 0,
    );
    const list = ["a".repeat(30), "b".repeat(80), "c", "d"];
    const { answer, lists } = pages.split("", { data: { list }, status: {}, warnings: [] });
    expect((answer.data as { list: string[] }).list).toEqual([list[0]]);
    const second = pages.read("", lists[0]!.next_cursor!);
    expect(second.items).toEqual([list[1]]);
    expect(pages.read("", second.next_cursor!).items).toEqual(["c", "d"]);
  });

  it("moves each item's status, evidence and warnings to the page that holds the item", () => {
    const pages = pager();
    const { answer, lists } = pages.split("", {
      data: { products: items(15) },
      status: { "/products/3/name": "unverified", "/products/12/name": "absent", "/products": "found" },
      warnings: [{ code: "ungrounded", path: "/products/12/name" }, { code: "content-truncated" }],
      evidence: { "/products/1/name": { source: "layout" }, "/products/14/name": { source: "model" } },
    });
    expect(answer.status).toEqual({ "/products/3/name": "unverified", "/products": "found" });
    expect(answer.warnings).toEqual([{ code: "content-truncated" }]);
    expect(answer.evidence).toEqual({ "/products/1/name": { source: "layout" } });
    const second = pages.read("", lists[0]!.next_cursor!);
    expect(second.status).toEqual({ "/products/12/name": "absent" });
    expect(second.warnings).toEqual([{ code: "ungrounded", path: "/products/12/name" }]);
    expect(second.evidence).toEqual({ "/products/14/name": { source: "model" } });
  });

  it("refuses a cursor of another scope, an expired one, one past its answers per scope, and a made-up one", () => {
    const now = { ms: 0 };
    const pages = pager(now);
    const split = () =>
      pages.split("acct", { data: { l: items(11) }, status: {}, warnings: [] }).lists[0]!.next_cursor!;
    const oldest = split();
    const kept = split();
    expect(() => pages.read("other", kept)).toThrow(/unknown or expired/);
    split();
    expect(() => pages.read("acct", oldest)).toThrow(/unknown or expired/);
    expect(pages.read("acct", kept).items).toHaveLength(1);
    now.ms = 60_000;
    expect(() => pages.read("acct", kept)).toThrow(/unknown or expired/);
    expect(() => pages.read("acct", "x.y.z")).toThrow(/unknown or expired/);
  });

  it("forgets the oldest answers when the bytes kept in all would pass the bound", () => {
    const pages = pager({ ms: 0 }, { answersPerScope: 10, totalBytes: 300 });
    const cursorOf = (scope: string) =>
      pages.split(scope, { data: { l: items(20) }, status: {}, warnings: [] }).lists[0]!.next_cursor!;
    const first = cursorOf("a");
    const second = cursorOf("b");
    expect(() => pages.read("a", first)).toThrow(/unknown or expired/);
    expect(pages.read("b", second).items).toHaveLength(10);
  });
});
