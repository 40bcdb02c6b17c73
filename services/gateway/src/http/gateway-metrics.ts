/**
 * The gateway's own metrics: the problems it answers and rate-limit refusals. Requests by
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

export type RateLimit = "requests_per_minute" | "concurrent_scrapes" | "dashboard_login" | "failed_key_checks";

export function countProblem(type: ProblemSlug): void {
  problems.add(1, { "winnow.problem.type": type });
}

export function countRateLimited(limit: RateLimit): void {
  rateLimited.add(1, { "winnow.rate_limit": limit });
}
