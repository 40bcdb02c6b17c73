import { expect, it } from "vitest";
import { renderBenchDocs } from "./bench-docs.js";

it("the docs' benchmark figures are what bench/results/*.json says (run `npm run docs` when this fails)", async () => {
  const drifted = (await renderBenchDocs()).flatMap((doc) =>
    doc.drift.map((d) => `${doc.file}: figure ${d.name} says\n${d.committed}\nbut bench/results says\n${d.rendered}`),
  );
  expect(drifted, `run \`npm run docs\` to rewrite them:\n\n${drifted.join("\n\n")}`).toEqual([]);
});
