import { unary, type Logger } from "@winnow/platform";
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
      const response = await deps.renderer.render(toRenderJob(request, context, deps.renderTimeoutMs));
      countRender(response.path);
      return response;
    }),
  };
}
