/** The docs whose benchmark figures are generated from bench/results, rendered from the results as they stand. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Drift, renderFigures } from "../doc-figures.js";
import { listingFigures } from "./listing.js";
import { listsFigures } from "./lists.js";
import { pageFigures } from "./pages.js";
import { qualityFigures } from "./quality.js";
import { loadResults, type Results } from "./results.js";
import { serviceFigures } from "./services.js";

/** scripts/src/figures or scripts/dist/figures → the repository. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const benchFigures = (r: Results) => ({
  ...qualityFigures(r),
  ...listsFigures(r),
  ...listingFigures(r),
  ...serviceFigures(r),
  ...pageFigures(r),
});

/** README.md, bench/README.md and docs/*.md, by their path from the repository. */
async function docFiles(root: string): Promise<string[]> {
  const docs = (await readdir(path.join(root, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", "bench/README.md", ...docs.map((name) => `docs/${name}`)];
}

export interface RenderedDoc {
  file: string;
  before: string;
  after: string;
  drift: Drift[];
}

/** Every doc with its figures rendered from `bench/results/*.json` under `root`. */
export async function renderBenchDocs(root = REPO_ROOT): Promise<RenderedDoc[]> {
  const figures = benchFigures(await loadResults(path.join(root, "bench", "results")));
  return Promise.all(
    (await docFiles(root)).map(async (file) => {
      const before = await readFile(path.join(root, file), "utf8");
      const { text, drift } = renderFigures(before, figures);
      return { file, before, after: text, drift };
    }),
  );
}
