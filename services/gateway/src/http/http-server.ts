import { randomUUID } from "node:crypto";
import type { RequestListener, Server } from "node:http";
import { createServer, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PROBLEM_TYPES, WinnowError } from "@winnow/platform";
import { problemBody } from "./problem.js";

export interface RunningHttpServer {
  port: number;
  /** Stops accepting connections, lets in-flight requests finish within graceMs, then drops the rest. */
  close(graceMs: number): Promise<void>;
}

export async function startHttpServer(
  handler: RequestListener,
  host: string,
  port: number,
): Promise<RunningHttpServer> {
  const server = createServer(handler);
  answerMalformedRequests(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close(graceMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

/**
 * Requests Node's HTTP parser refuses (a bad request line, headers over the
 * size limit, too slow to arrive) never reach Express; Node would answer
 * them with an empty body. They get a problem document like every other
 * failure, and the connection is closed, its stream being unusable. As in
 * Node's own handler, nothing is written once a response has started.
 */
function answerMalformedRequests(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    const problem = malformedRequestProblem(error);
    const { status } = PROBLEM_TYPES[problem.type];
    const requestId = randomUUID();
    const body = problemBody(problem, requestId);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/problem+json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}

function malformedRequestProblem(error: NodeJS.ErrnoException): WinnowError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new WinnowError("headers-too-large", "The request's headers are larger than the gateway accepts.");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new WinnowError("request-timeout", "The request did not arrive completely in time.");
    default:
      return new WinnowError("invalid-request", `The request is not valid HTTP/1.1 (${error.code ?? error.message}).`);
  }
}
