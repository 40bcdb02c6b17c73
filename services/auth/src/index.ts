/**
 * What other parts of Winnow may use of the auth service (the end-to-end
 * tests, the deployment checks, the benchmarks); the process itself starts
 * from main.ts.
 */
export { generateApiKey } from "./api-key.js";
export { authServiceBinding } from "./auth-service.js";
export { AuthStore } from "./auth-store.js";
export { authConfigShape } from "./config.js";
export { openPglite, openPostgres, type SqlDatabase } from "./database.js";
export { KeyCipher } from "./key-cipher.js";
export { migrate } from "./migrations.js";
export { planLookup } from "./plans.js";
export { RevocationFeed } from "./revocation-feed.js";
