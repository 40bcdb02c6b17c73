/**
 * The gateway's own metrics: the problems it answers, rate-limit refusals, and scrapes by what answered them. Requests by
 * route, method and status are the HTTP instrumentation's http.server.request.duration.
 */
import { meter, type ProblemSlug } from "@winnow/platform";

const problems = meter.createCounter("winnow.problems", {
  description: "Problem documents the gateway answered, by problem type",
});
const rateLimited = meter.createCounter("winnow.rate_limit.rejections", {
  description:
    "Requests refused by a rate limit: requests_per_minute, concurrent_scrapes, dashboard_login or failed_key_checks",
});

const scrapes = meter.createCounter("winnow.scrapes", {
  description:
    "Scrapes answered, by what answered the data (cache, template, builtin, model) and whether the page came from cache",
});

export type RateLimit = "requests_per_minute" | "concurrent_scrapes" | "dashboard_login" | "failed_key_checks";

export function countProblem(type: ProblemSlug): void {
  problems.add(1, { "winnow.problem.type": type });
}

export function countRateLimited(limit: RateLimit): void {
  rateLimited.add(1, { "winnow.rate_limit": limit });
}

/** path: x-winnow-path's value; page: whether the page came from the scrape cache (hit) or was loaded (miss). */
export function countScrape(path: string, page: "hit" | "miss"): void {
  scrapes.add(1, { "winnow.answer_path": path, "winnow.cache.page": page });
}
