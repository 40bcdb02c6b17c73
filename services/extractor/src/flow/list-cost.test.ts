/**
 * Reading a list costs work linear in the page: doubling the records of a
 * page at most about doubles the work, counted (not timed) as the reads of
 * the page's child lists (every walk of the document, of an element's
 * siblings or subtree reads them) and the values the answer's status scans.
 * A quadratic part makes the count grow fourfold: naming each record's
 * element by its place among all its siblings did, and so did judging each
 * value of a list by all the values of its field.
 */
import { createLogger } from "@winnow/platform";
import type { AnyNode } from "domhandler";
import { describe, expect, it, vi } from "vitest";
import { catalogueGrid, LIST_SCHEMA, labelledRows } from "../../../../test/support/list-pages.js";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { runExtraction } from "./extract.js";

/** Values the status scans: underFields, the real one, counting the evidence it reads. */
const scanned = vi.hoisted(() => ({ values: 0 }));
vi.mock("../schema/evidence.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../schema/evidence.js")>();
  return {
    ...real,
    underFields: (evidence: Map<string, unknown>, fields: string[]) => {
      scanned.values += evidence.size;
      return real.underFields(evidence as Parameters<typeof real.underFields>[0], fields);
    },
  };
});

const schemas = new SchemaCache();
const schemaJson = JSON.stringify(LIST_SCHEMA);

/** Each element's child list counts its reads (an index, its length, an iteration step all read it once). */
function countReads(node: AnyNode & { children?: AnyNode[] }, counter: { reads: number }): void {
  const stack: (AnyNode & { children?: AnyNode[] })[] = [node];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (!next.children) continue;
    for (const child of next.children) stack.push(child);
    next.children = new Proxy(next.children, {
      get(target, key, receiver) {
        counter.reads++;
        return Reflect.get(target, key, receiver);
      },
    });
  }
}

/** The records answered for the page's list, with each value's evidence and status. */
async function recordsOf(page: ReturnType<typeof loadPage>): Promise<number> {
  const { response } = await runExtraction(
    {
      schemaJson,
      fieldHints: {},
      fieldRules: {},
      schema: schemas.get(schemaJson),
      page,
      taskDescription: "",
      includeModelInput: false,
      evidence: true,
      llm: undefined,
      bounds: { signal: new AbortController().signal, deadline: undefined },
      templateScope: undefined,
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
    },
    {
      schemas,
      prompts: { pageTokens: 4_000, maxParts: 8, maxParallel: 2, grounding: "warn" },
      hybrid: "off",
      templates: undefined,
      logger: createLogger("test", "silent"),
    },
  );
  return (JSON.parse(response.dataJson) as { products: unknown[] | null }).products?.length ?? 0;
}

/** The work of extracting a list of n records, with each value's evidence and status. */
async function workOf(html: string): Promise<{ reads: number; scanned: number; records: number }> {
  const page = loadPage(html, "https://shop.example/catalogue");
  const counter = { reads: 0 };
  countReads(page.$.root().get(0)!, counter);
  scanned.values = 0;
  const records = await recordsOf(page);
  return { reads: counter.reads, scanned: scanned.values, records };
}

describe("the cost of reading a list", () => {
  it.each([
    ["a catalogue grid", catalogueGrid],
    ["labelled rows", labelledRows],
  ])("grows linearly with the records of %s", async (_, pageOf) => {
    const small = await workOf(pageOf(500));
    const large = await workOf(pageOf(1_000));
    expect([small.records, large.records]).toEqual([500, 1_000]);
    // Linear doubles the work; quadratic quadruples it. 2.5 leaves room for the page's fixed parts.
    expect(large.reads / small.reads).toBeLessThan(2.5);
    expect(large.scanned / small.scanned).toBeLessThan(2.5);
  });

  it("answers every record of a list larger than any bound on the elements walked (12,000 cards of 6 elements)", async () => {
    // A bound of 60,000 elements on segmentation answered 9,998 of them, and said nothing.
    expect(await recordsOf(loadPage(catalogueGrid(12_000), "https://shop.example/catalogue"))).toBe(12_000);
  });
});
