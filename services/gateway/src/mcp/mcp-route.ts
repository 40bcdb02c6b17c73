import type { Socket } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Winnow, WinnowBatch } from "@winnow/client";
import { type AnswerPages, createWinnowMcpServer } from "@winnow/client/mcp";
import { WinnowError } from "@winnow/platform";
import express, { type RequestHandler } from "express";
import { jsonBody } from "../http/json-body.js";
import { keyOf } from "../keys/api-key.js";

export interface McpRouteOptions {
  /** Checks the key and counts the request, as on /scrape; a tool's own API call then passes that route's checks. */
  keyed: RequestHandler[];
  maxBodyBytes: number;
  /** Later pages of long lists, per account, for this gateway's life (see AnswerPages). */
  pages: AnswerPages;
}

/**
 * POST /mcp: the same tools as the winnow-mcp bin, over MCP's streamable HTTP, stateless (each POST is answered on its
 * own, in JSON). A tool calls this gateway's own API on the address the request came in on, with the caller's key, so
 * that a scrape through MCP is limited, counted and cached as POST /scrape is, by the same code.
 */
export function mcpRouter({ keyed, maxBodyBytes, pages }: McpRouteOptions): express.Router {
  const router = express.Router();
  router.post("/", ...keyed, ...jsonBody(maxBodyBytes), async (req, res) => {
    const apiKey = keyOf(req.get("x-api-key"), req.get("authorization"))!;
    const baseUrl = ownAddress(req.socket);
    const { requestId, signal, deadline } = res.locals;
    // The tools' calls carry this request's id, so that one id names the work in every log line, and stop when its
    // caller goes away.
    const ownFetch: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), "x-request-id": requestId },
        signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
      });
    const server = createWinnowMcpServer({
      pages,
      scope: res.locals.accountId!,
      // No retries here: a 429 goes back to the agent at once, whose own pace it is. Within this request's deadline,
      // so that running out of time is a tool error, not a lost answer.
      api: () => ({
        winnow: new Winnow({
          apiKey,
          baseUrl,
          fetch: ownFetch,
          maxRetries: 0,
          timeoutMs: Math.max(1, deadline.getTime() - Date.now()),
        }),
        batch: new WinnowBatch({ apiKey, baseUrl, fetch: ownFetch }),
      }),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  router.all("/", (req, res) => {
    res.setHeader("Allow", "POST");
    throw new WinnowError(
      "method-not-allowed",
      `${req.method} is not allowed on /mcp: it is stateless (no session, no server-sent stream); POST each message.`,
    );
  });
  return router;
}

/** http://address:port the request arrived on: the gateway itself, however it listens. */
function ownAddress(socket: Socket): string {
  const address = (socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  return `http://${address.includes(":") ? `[${address}]` : address}:${socket.localPort}`;
}
