/**
 * What other parts of Winnow may use of the renderer (the end-to-end tests,
 * the deployment checks, the benchmarks); the process itself starts from
 * main.ts.
 */
export { LAUNCH_ARGS } from "./browser/browser.js";
export { findBrowser } from "./browser/browser-discovery.js";
export { descendantsRssBytes } from "./browser/process-memory.js";
export { rendererConfigShape } from "./config.js";
export type { RenderChoice } from "./render-request.js";
export { createRendering } from "./rendering.js";
