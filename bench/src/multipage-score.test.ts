import { describe, expect, it } from "vitest";
import { scorerTable } from "./multipage-score.js";

describe("the multi-page scorer's table", () => {
  it("reads each site row, a site without detail fields too, and nothing else", () => {
    const output = [
      "statuses: {200: 3}",
      "site                  records found  extra   dup     pages      P      R     F1  detail F1",
      "books-toscrape           20/980          0     0    1/49   1.000  0.020  0.040 –",
      "ftowa-forum              52/502          2     1    1/10   1.000  0.089  0.163 0.000",
      "",
      "site                 field                     P      R     F1     n",
      "books-toscrape       title                 1.000  0.020  0.039   980",
    ].join("\n");
    expect(scorerTable(output)).toEqual([
      {
        site: "books-toscrape",
        found: 20,
        expected: 980,
        extra: 0,
        duplicates: 0,
        pagesCovered: 1,
        pages: 49,
        precision: 1,
        recall: 0.02,
        f1: 0.04,
        detailF1: undefined,
      },
      {
        site: "ftowa-forum",
        found: 52,
        expected: 502,
        extra: 2,
        duplicates: 1,
        pagesCovered: 1,
        pages: 10,
        precision: 1,
        recall: 0.089,
        f1: 0.163,
        detailF1: 0,
      },
    ]);
  });
});
