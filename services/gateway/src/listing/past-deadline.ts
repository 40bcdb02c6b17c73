import type { ScrapeContext } from "../scrape/scrape-page.js";

/** Whether the request's deadline has passed: a page asked for now could only fail, so it is not asked for. */
export function pastDeadline(context: ScrapeContext): boolean {
  const deadline = context.hop.deadline;
  return deadline !== undefined && Date.now() >= deadline.getTime();
}
