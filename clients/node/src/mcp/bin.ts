#!/usr/bin/env node
/// <reference types="node" />
/**
 * winnow-mcp: Winnow's tools for an MCP host over stdio. It calls the API at WINNOW_BASE_URL with WINNOW_API_KEY
 * through this package's client; a missing or bad key is every tool's error, so the host still lists the tools.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WinnowBatch } from "../batch.js";
import { Winnow } from "../client.js";
import { AuthenticationError } from "../errors.js";
import { createWinnowMcpServer, defaultAnswerPages, type WinnowApi } from "./server.js";

let api: WinnowApi | undefined;
const server = createWinnowMcpServer({
  pages: defaultAnswerPages(),
  api() {
    if (!process.env.WINNOW_API_KEY)
      throw new AuthenticationError("Set WINNOW_API_KEY in the MCP server's environment (the host's config).", {
        status: 401,
        type: "unauthorized",
        retryable: false,
      });
    api ??= { winnow: new Winnow(), batch: new WinnowBatch() };
    return api;
  },
});
await server.connect(new StdioServerTransport());
