import { describe, expect, it } from "vitest";
import { renderFigures } from "./doc-figures.js";

const figures = { "quality.f1": () => "0.891", "quality.table": () => "| a |\n|---|\n| 1 |" };

describe("generated figures in markdown", () => {
  it("rewrites inline figures and blocks, and names each figure whose committed text differs", () => {
    const doc = [
      "F1 <!-- figure:quality.f1 -->0.872<!-- /figure --> overall.",
      "<!-- figures:quality.table -->",
      "| a |",
      "|---|",
      "| 1 |",
      "<!-- /figures:quality.table -->",
    ].join("\n");
    const { text, drift } = renderFigures(doc, figures);
    expect(text).toBe(doc.replace("0.872", "0.891"));
    expect(drift).toEqual([{ name: "quality.f1", committed: "0.872", rendered: "0.891" }]);
    expect(renderFigures(text, figures).drift).toEqual([]);
  });

  it("leaves a marker named in prose alone: an inline figure ends on its own line", () => {
    const doc =
      "Figures sit between `<!-- figure:quality.f1 -->` markers.\nF1 <!-- figure:quality.f1 -->0.891<!-- /figure -->.";
    expect(renderFigures(doc, figures)).toEqual({ text: doc, drift: [] });
  });

  it("refuses a figure it cannot render", () => {
    expect(() => renderFigures("<!-- figure:quality.f2 -->1<!-- /figure -->", figures)).toThrow(/quality\.f2/);
  });
});
