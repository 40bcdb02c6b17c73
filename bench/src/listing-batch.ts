/**
 * The same pages as a whole listing read, as batch jobs (`POST /batch/scrape`): the listing pages with the listing's
 * schema, the records' own pages with the record's item schema, submitted together and timed until all are done.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** The pages a whole listing read: its listing pages, and its records' own pages. */
export interface PagesOfListing {
  listing: string[];
  details: string[];
}

/**
 * The pages the sites were asked for while the listing was read (`requested`, robots.txt aside), split as the listing
 * reads them (read-listing.ts): its `listing` pages (Winnow-Pages) one after another first, then the records' own.
 */
export function pagesOfListing(requested: string[], listing: number): PagesOfListing {
  const pages = [...new Set(requested.filter((url) => new URL(url).pathname !== "/robots.txt"))];
  return { listing: pages.slice(0, listing), details: pages.slice(listing) };
}

export interface BatchRun {
  pages: number;
  failed: number;
  seconds: number;
}

/** `itemSchema`: the schema of the records, which their own pages are read with. */
export async function batchOf(
  gatewayUrl: string,
  apiKey: string,
  schema: Record<string, unknown>,
  itemSchema: unknown,
  pages: PagesOfListing,
): Promise<BatchRun> {
  const jobs = [
    { urls: pages.listing, schema },
    { urls: pages.details, schema: itemSchema },
  ].filter((job) => job.urls.length > 0);
  const call = (route: string, init: RequestInit = {}) =>
    fetch(new URL(route, gatewayUrl), {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": apiKey },
    });
  const started = performance.now();
  const failed = await Promise.all(
    jobs.map(async (job) => {
      const submitted = await call("/batch/scrape", { method: "POST", body: JSON.stringify(job) });
      if (submitted.status !== 202) throw new Error(`batch refused: ${submitted.status} ${await submitted.text()}`);
      const { status_url } = (await submitted.json()) as { status_url: string };
      for (;;) {
        const state = (await (await call(status_url)).json()) as { status: string; counts: { failed: number } };
        if (state.status === "completed") return state.counts.failed;
        if (state.status !== "queued" && state.status !== "running")
          throw new Error(`batch job ${status_url} ended ${state.status}`);
        await sleep(200);
      }
    }),
  );
  return {
    pages: jobs.reduce((sum, job) => sum + job.urls.length, 0),
    failed: failed.reduce((a, b) => a + b, 0),
    seconds: (performance.now() - started) / 1000,
  };
}
