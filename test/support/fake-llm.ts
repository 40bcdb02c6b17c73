/**
 * A small OpenAI-compatible server for tests: no model is reachable from the
 * test machines, so tests script the model's answers. It serves
 * `POST /v1/chat/completions` on 127.0.0.1, records every request body and
 * answers with a proper chat.completion object (usage included).
 *
 *   const llm = await startFakeLlm((body) => ({ title: "Hello" }));
 *   // LLM_BASE_URL = llm.baseUrl; ... llm.requests[0].model ...
 *   await llm.close();
 *
 * `respond` returns the JSON object the model answers, or one of the `reply`
 * instructions for failures (an HTTP status, raw content, a refusal, no answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } };
  temperature?: number;
  [key: string]: unknown;
}

type Instruction =
  | { kind: "status"; status: number; retryAfterMs: number | undefined; message: string | undefined }
  | { kind: "content"; content: string }
  | { kind: "refusal"; refusal: string }
  | { kind: "hang" };

class FakeReply {
  constructor(readonly instruction: Instruction) {}
}

/** Instructions for answers other than a JSON object. */
export const reply = {
  /** An HTTP error; retryAfterMs sets `retry-after-ms` (0 makes retries immediate); message is the error's text. */
  status: (status: number, retryAfterMs?: number, message?: string) =>
    new FakeReply({ kind: "status", status, retryAfterMs, message }),
  /** Assistant content verbatim, e.g. something that is not JSON. */
  content: (content: string) => new FakeReply({ kind: "content", content }),
  refusal: (refusal: string) => new FakeReply({ kind: "refusal", refusal }),
  /** Never answer (until close()). */
  hang: () => new FakeReply({ kind: "hang" }),
};

export type FakeAnswer = Record<string, unknown> | FakeReply;

export interface FakeLlm {
  /** Ends with /v1, as LLM_BASE_URL expects. */
  baseUrl: string;
  /** Every chat.completions request body received, in order (retries included). */
  requests: ChatRequestBody[];
  close(): Promise<void>;
}

export async function startFakeLlm(
  respond: (body: ChatRequestBody) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeLlm> {
  const requests: ChatRequestBody[] = [];
  let completions = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return sendJson(res, 404, {
        error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" },
      });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequestBody;
    } catch {
      return sendJson(res, 400, { error: { message: "the body is not JSON", type: "invalid_request_error" } });
    }
    requests.push(body);
    const answer = await respond(body);
    const instruction: Instruction =
      answer instanceof FakeReply ? answer.instruction : { kind: "content", content: JSON.stringify(answer) };
    switch (instruction.kind) {
      case "hang":
        return;
      case "status":
        return sendJson(
          res,
          instruction.status,
          { error: { message: instruction.message ?? `scripted ${instruction.status}`, type: "server_error" } },
          instruction.retryAfterMs === undefined ? {} : { "retry-after-ms": String(instruction.retryAfterMs) },
        );
      case "content":
      case "refusal": {
        completions += 1;
        const content = instruction.kind === "content" ? instruction.content : null;
        const promptTokens = estimateTokens(body.messages.map((m) => m.content).join("\n"));
        const completionTokens = estimateTokens(content ?? "");
        return sendJson(res, 200, {
          id: `chatcmpl-fake-${completions}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content,
                refusal: instruction.kind === "refusal" ? instruction.refusal : null,
              },
              finish_reason: "stop",
              logprobs: null,
            },
          ],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        });
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      sendJson(res, 500, { error: { message: String(error), type: "server_error" } }),
    );
  });
  // Idle connections outlive the client's reuse of them (undici keeps one 4 s): a busy machine's late timers would
  // otherwise let the server close a connection the client is sending on (ECONNRESET). close() ends them all.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests hold their connections open; end them too.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Roughly four characters a token: enough for usage figures that add up. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
