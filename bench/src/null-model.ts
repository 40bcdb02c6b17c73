/**
 * A model that never finds anything: an OpenAI-compatible server on a free
 * loopback port whose every chat completion is the requested object with
 * every field null. It measures what hybrid extraction loses to a model that
 * answers null for what it did not see (a small local model says "not found"
 * when unsure): with it, the hybrid answer should be the builtin engine's.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface NullModel {
  /** Ends with /v1, as LLM_BASE_URL expects. */
  baseUrl: string;
  stop(): Promise<void>;
}

interface ChatRequest {
  model?: string;
  response_format?: { json_schema?: { schema?: { properties?: Record<string, unknown> } } };
}

export async function startNullModel(): Promise<NullModel> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"no route"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
      // The structured-output schema names the fields; in json_object mode there is none, and {} shapes to nulls too.
      const fields = Object.keys(body.response_format?.json_schema?.schema?.properties ?? {});
      const content = JSON.stringify(Object.fromEntries(fields.map((name) => [name, null])));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-null",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? "null",
          choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
