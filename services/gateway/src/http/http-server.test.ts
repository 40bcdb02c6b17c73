/**
 * Requests Node's HTTP parser refuses before any route, sent over a raw TCP
 * socket: they are answered with problem documents, and the connection closes.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningHttpServer, startHttpServer } from "./http-server.js";

let server: RunningHttpServer;
beforeAll(async () => {
  server = await startHttpServer((_req, res) => res.end("ok"), "127.0.0.1", 0);
});
afterAll(() => server?.close(100));

/** Sends `raw` and reads everything until the server closes the connection. */
function exchange(raw: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = received.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    socket.end(raw);
  });
}

describe("requests the HTTP parser refuses", () => {
  it.each([
    ["a bad request line", "this is not http\r\n\r\n", 400, "invalid-request"],
    ["a bad header line", "GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "invalid-request"],
    [
      "headers over the size limit",
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(32 * 1024)}\r\n\r\n`,
      431,
      "headers-too-large",
    ],
  ])("%s: a problem document, then the connection closes", async (_, raw, status, type) => {
    const res = await exchange(raw);
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toBe("application/problem+json");
    expect(res.headers.connection).toBe("close");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body)).toMatchObject({
      type: `https://winnow.dev/problems/${type}`,
      status,
      retryable: false,
      request_id: res.headers["x-request-id"],
    });
  });

  it("still answers well-formed requests", async () => {
    const res = await exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(res.status).toBe(200);
    expect(res.body).toBe("ok");
  });
});
