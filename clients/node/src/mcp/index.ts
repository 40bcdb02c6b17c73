export { AnswerPages, MARKDOWN_POINTER, type PageBounds, type StoreBounds } from "./answer-pages.js";
export { createWinnowMcpServer, defaultAnswerPages, type McpServerOptions, type WinnowApi } from "./server.js";
