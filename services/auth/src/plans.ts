import { WinnowError } from "@winnow/platform";
import type { PlanLimits } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { AuthConfig } from "./config.js";

/** The plan new accounts get; the only one so far. */
export const DEFAULT_PLAN = "default";

export type PlanLookup = (plan: string) => PlanLimits;

/** Plan limits as configured; an account on a plan this build does not know is a data error. */
export function planLookup(
  config: Pick<AuthConfig, "PLAN_REQUESTS_PER_MINUTE" | "PLAN_MAX_CONCURRENT_SCRAPES">,
): PlanLookup {
  const plans = new Map<string, PlanLimits>([
    [
      DEFAULT_PLAN,
      {
        plan: DEFAULT_PLAN,
        requestsPerMinute: config.PLAN_REQUESTS_PER_MINUTE,
        maxConcurrentScrapes: config.PLAN_MAX_CONCURRENT_SCRAPES,
      },
    ],
  ]);
  return (plan) => {
    const limits = plans.get(plan);
    if (!limits) throw new WinnowError("internal", `unknown plan ${JSON.stringify(plan)}`);
    return limits;
  };
}
