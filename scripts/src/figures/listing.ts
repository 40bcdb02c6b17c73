/** Figures of `npm run bench:listing` (bench/results/listing.json, listing-llm.json with `--llm`) in bench/README.md. */
import type { Figures } from "../doc-figures.js";
import { at, f1, f3, type Results, table } from "./results.js";

interface SiteScore {
  site: string;
  found: number;
  expected: number;
  extra: number;
  f1: number;
  detailF1?: number;
}

interface Cost {
  pagesRead: number;
  modelCalls: number;
  pagesWithModelCalls: number;
}

interface Throughput {
  listing: { pagesPerSecond: number };
  batch: { pagesPerSecond: number };
  ratio: number;
}

interface ListingResults {
  load: { before: number; after: number; cores: number };
  runs: { mode: string; sites: SiteScore[]; cost: Record<string, Cost>; throughput?: Record<string, Throughput> }[];
}

/** Per site, the whole listing: records, F1, pages read and what the model read of them, and pages/s against a batch. */
function wholeListing(r: Results, file: string): string {
  const results = at(r, file) as ListingResults;
  const run = results.runs.find((item) => item.mode === "whole listing");
  if (!run) throw new Error(`bench/results ${file} has no whole listing run`);
  const rows = run.sites.map((site) => {
    const cost = run.cost[site.site];
    const speed = run.throughput?.[site.site];
    return [
      site.site,
      `${site.found} of ${site.expected}`,
      String(site.extra),
      f3(site.f1),
      site.detailF1 === undefined ? "–" : f3(site.detailF1),
      cost ? String(cost.pagesRead) : "",
      cost ? `${cost.pagesWithModelCalls} (${cost.modelCalls} calls)` : "",
      speed
        ? `${f1(speed.listing.pagesPerSecond)} / ${f1(speed.batch.pagesPerSecond)} (${speed.ratio.toFixed(2)}×)`
        : "",
    ];
  });
  const { load } = results;
  return [
    table(
      [
        "site",
        "records found",
        "extra",
        "F1",
        "detail F1",
        "pages read",
        "pages with model calls",
        "pages/s: listing / batch",
      ],
      rows,
    ),
    "",
    `Load average ${f1(load.before)} at the start, ${f1(load.after)} at the end, on ${load.cores} shared cores.`,
  ].join("\n");
}

export function listingFigures(r: Results): Figures {
  return {
    "listing.whole": () => wholeListing(r, "listing"),
    "listing-llm.whole": () => wholeListing(r, "listing-llm"),
  };
}
