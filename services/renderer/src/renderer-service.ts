import { type Logger, type ServiceBinding, signPage, unary, WinnowError } from "@winnow/platform";
import {
  type RendererServiceServer,
  RendererServiceService,
  type RenderRequest,
  type RenderResponse,
} from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { PageRenderer } from "./page-renderer.js";
import { countRender } from "./render-metrics.js";
import { toRenderJob } from "./render-request.js";

export const RENDERER_SERVICE_NAME = "winnow.renderer.v1.RendererService";

export interface RendererDependencies {
  logger: Logger;
  renderer: PageRenderer;
  /** The longest render; the caller's deadline and timeout_ms can shorten it. */
  renderTimeoutMs: number;
  /** Signs each page rendered (WINNOW_PAGE_SIGNING_KEY); undefined: pages go unsigned and teach no templates. */
  pageSigningKey: string | undefined;
}

/** The service as a gRPC server registers it. */
export function rendererServiceBinding(deps: RendererDependencies): ServiceBinding {
  return {
    name: RENDERER_SERVICE_NAME,
    definition: RendererServiceService,
    implementation: createRendererService(deps),
    protoFile: "winnow/renderer/v1/renderer.proto",
  };
}

/** The gRPC implementation of winnow.renderer.v1.RendererService. */
function createRendererService({ logger, ...deps }: RendererDependencies): RendererServiceServer {
  return {
    render: unary<RenderRequest, RenderResponse>(logger, async (request, context) => {
      const job = toRenderJob(request, context, deps.renderTimeoutMs);
      const response = await deps.renderer.render(job).catch((error: unknown) => {
        // Out of the caller's time, the page is not to blame: the caller's deadline passed (its own timer may fire a
        // moment later).
        if (job.deadlineBound && error instanceof WinnowError && error.type === "target-timeout") {
          throw new WinnowError("deadline-exceeded", "the request's deadline passed while the page was loading", {
            cause: error,
          });
        }
        throw error;
      });
      countRender(response.path);
      const { pageSigningKey } = deps;
      const signature = pageSigningKey ? signPage(pageSigningKey, response.finalUrl, response.html) : Buffer.alloc(0);
      return { ...response, signature };
    }),
  };
}
