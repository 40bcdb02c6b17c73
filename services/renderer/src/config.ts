import { env, grpcServiceConfig } from "@winnow/platform";
import { z } from "zod";

export const rendererConfigShape = {
  ...grpcServiceConfig({ grpcPort: 50052, metricsPort: 9466 }),
  /** What every caller (the gateway, other internal services) must present; the only token this process holds. */
  WINNOW_SERVICE_TOKEN: env.callerToken(),
  /** Signs every page rendered, so that the extractor learns templates from those pages only (page-signature.ts). */
  WINNOW_PAGE_SIGNING_KEY: env.sharedSecret("the key the renderer signs pages with, the extractor's too").optional(),
  /** Searched first; where it names no executable, the search goes on (browser-discovery.ts). */
  CHROMIUM_PATH: z.string().min(1).optional(),
  RENDER_MAX_PAGES: env.positiveInt(4, 64),
  /** Pages one account may hold at once; unset: all but one of RENDER_MAX_PAGES (page-slots.ts). */
  RENDER_MAX_PAGES_PER_ACCOUNT: env.wholeNumber(1, 64).optional(),
  RENDER_MAX_QUEUE: env.positiveInt(32),
  RENDER_TIMEOUT_MS: env.positiveInt(20_000),
  RENDER_MAX_HTML_BYTES: env.positiveInt(10 * 1024 * 1024),
  /** A page's JavaScript heap (each of the browser's renderer processes); a page that needs more is page-too-large. */
  RENDER_MAX_HEAP_MB: env.wholeNumber(64, 16_384).default(256),
  RENDER_MAX_REDIRECTS: env.positiveInt(10, 20),
  RENDER_RECYCLE_AFTER_PAGES: env.positiveInt(500),
  RENDER_RECYCLE_AT_MEMORY_MB: env.positiveInt(1024),
  /** Addresses the egress guard lets through although they are not public (tests, private deployments). */
  WINNOW_EGRESS_ALLOW: env.egressAllowlist(),
};

export type RendererConfig = z.infer<z.ZodObject<typeof rendererConfigShape>>;
