/**
 * What other parts of Winnow may use of the gateway (the end-to-end tests,
 * the deployment checks, the benchmarks, the API docs generator); the process
 * itself starts from main.ts.
 */
export { createGateway } from "./app.js";
export { connectBackends } from "./backends.js";
export { configShape } from "./config.js";
export { withGeneratedTables } from "./docs/api-markdown.js";
export { Drain } from "./http/drain.js";
export { startHttpServer } from "./http/http-server.js";
export { createLimiterFactory } from "./http/rate-limits.js";
export { jobsConfigShape } from "./jobs/jobs-config.js";
