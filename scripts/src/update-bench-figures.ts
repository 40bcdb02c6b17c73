/** `npm run docs`: rewrites the benchmark figures in README.md, bench/README.md and docs/*.md from bench/results. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT, renderBenchDocs } from "./figures/bench-docs.js";

for (const doc of await renderBenchDocs()) {
  if (doc.after === doc.before) continue;
  await writeFile(path.join(REPO_ROOT, doc.file), doc.after);
  console.log(`${doc.file}: ${doc.drift.map((d) => d.name).join(", ")} rewritten`);
}
console.log("benchmark figures are up to date");
