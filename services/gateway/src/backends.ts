import {
  type AuthClient,
  checkHealth,
  createClient,
  type ExtractorClient,
  promiseClient,
  type RendererClient,
} from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { ExtractorServiceClient } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { RendererServiceClient } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";

/** The gateway's gRPC clients, one channel per backend (round robin over every address its name resolves to). */
export interface Backends {
  auth: AuthClient;
  renderer: RendererClient;
  extractor: ExtractorClient;
  /** Names of the backends that are not SERVING right now. */
  notReady(): Promise<string[]>;
  close(): void;
}

/** tokens: the gateway's own for auth; the service token for the renderer and the extractor. */
export function connectBackends(
  addresses: { auth: string; renderer: string; extractor: string },
  tokens: { gateway: string; service: string },
): Backends {
  const auth = promiseClient(createClient(AuthServiceClient, addresses.auth, tokens.gateway));
  const renderer = promiseClient(createClient(RendererServiceClient, addresses.renderer, tokens.service));
  const extractor = promiseClient(createClient(ExtractorServiceClient, addresses.extractor, tokens.service));
  return {
    auth,
    renderer,
    extractor,
    async notReady() {
      // Over the very channels scrapes use, so readiness reflects what requests would see.
      const entries = Object.entries({ auth, renderer, extractor });
      const statuses = await Promise.all(entries.map(([, client]) => checkHealth(client.grpc)));
      return entries.filter((_, i) => statuses[i] !== "SERVING").map(([name]) => name);
    },
    close() {
      auth.grpc.close();
      renderer.grpc.close();
      extractor.grpc.close();
    },
  };
}
