// The engine lives in builtin/; this path stays while hybrid.ts and extractor-service.ts import it here.
export { extractBuiltin } from "./builtin/index.js";
