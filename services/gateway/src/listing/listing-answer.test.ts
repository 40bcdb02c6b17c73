import { parseSchema } from "@winnow/platform";
import type { ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { describe, expect, it } from "vitest";
import { listFields } from "./list-fields.js";
import { ListingAnswer } from "./listing-answer.js";

const lists = listFields(parseSchema({ shop: "string", products: [{ name: "string", url: "string" }] }));

function page(data: object, pointers: string[]): ExtractResponse {
  return {
    dataJson: JSON.stringify(data),
    engine: 1,
    model: "",
    warnings: pointers.map((path) => ({ code: "coerced", message: "", path })),
    modelInputs: [],
    evidence: pointers.map((pointer) => ({
      pointer,
      source: "layout",
      text: pointer,
      selector: "",
      confidence: 0.6,
      grounded: true,
      status: "found",
    })),
    fieldStatus: pointers.map((pointer) => ({ pointer, status: "unverified" })),
  };
}

describe("one answer from a listing's pages", () => {
  it("moves each record's evidence, status and warnings to where the record went, and drops a repeat's", () => {
    const first = page({ shop: "Tents", products: [{ name: "A", url: "/a" }] }, ["/shop", "/products/0/name"]);
    const answer = new ListingAnswer(lists, first);
    expect(answer.addPage("https://shop.example/1", first)).toBe(1);
    const second = page(
      {
        shop: "Other",
        products: [
          { name: "A", url: "/a" },
          { name: "B", url: "/b" },
        ],
      },
      ["/shop", "/products/0/name", "/products/1/name"],
    );
    expect(answer.addPage("https://shop.example/2", second)).toBe(1);
    const result = answer.result();
    expect(JSON.parse(result.dataJson)).toEqual({
      shop: "Tents",
      products: [
        { name: "A", url: "/a" },
        { name: "B", url: "/b" },
      ],
    });
    expect(result.evidence.map((e) => [e.pointer, e.text])).toEqual([
      ["/shop", "/shop"],
      ["/products/0/name", "/products/0/name"],
      ["/products/1/name", "/products/1/name"],
    ]);
    expect(result.warnings.map((w) => w.path)).toEqual(["/shop", "/products/0/name", "/products/1/name"]);
    expect(answer.pagesOfEvidence()).toEqual({
      "/shop": "https://shop.example/1",
      "/products/0/name": "https://shop.example/1",
      "/products/1/name": "https://shop.example/2",
    });
  });

  it("marks a conflict on the listing's own evidence, which gains the other reading", () => {
    const first = page({ products: [{ name: "A", url: "/a" }] }, ["/products/0/name"]);
    const answer = new ListingAnswer(lists, first);
    answer.addPage("https://shop.example/1", first);
    const alternative = { valueJson: '"A+"', source: "heading", text: "A+", grounded: true };
    answer.state({ conflicts: [{ pointer: "/products/0/name", alternative }] });
    const result = answer.result();
    expect(result.fieldStatus).toEqual([{ pointer: "/products/0/name", status: "conflict" }]);
    expect(result.evidence[0]).toMatchObject({ status: "conflict", source: "layout", alternative });
  });
});
