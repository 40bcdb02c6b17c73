import { unary, WinnowError, type Logger } from "@winnow/platform";
import type { RendererServiceServer, RenderRequest, RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { PageRenderer } from "./page-renderer.js";
import { countRender } from "./render-metrics.js";
import { toRenderJob } from "./render-request.js";

export const RENDERER_SERVICE_NAME = "winnow.renderer.v1.RendererService";
export const RENDERER_PROTO_FILE = "winnow/renderer/v1/renderer.proto";

/** The gRPC implementation of winnow.renderer.v1.RendererService. */
export function createRendererService(
  logger: Logger,
  deps: { renderer: PageRenderer; renderTimeoutMs: number },
): RendererServiceServer {
  return {
    render: unary<RenderRequest, RenderResponse>(logger, async (request, context) => {
      const job = toRenderJob(request, context, deps.renderTimeoutMs);
      const response = await deps.renderer.render(job).catch((error: unknown) => {
        // Out of the caller's time, the page is not to blame: the caller's deadline passed (its own timer may fire a moment later).
        if (job.deadlineBound && error instanceof WinnowError && error.type === "target-timeout") {
          throw new WinnowError("deadline-exceeded", "the request's deadline passed while the page was loading", { cause: error });
        }
        throw error;
      });
      countRender(response.path);
      return response;
    }),
  };
}
