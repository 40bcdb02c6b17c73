/** A gateway in the test's own process on a running stack's backends (or on dead ones), with settings of the test's. */
import { connectBackends, createGateway, createLimiterFactory, Drain, startHttpServer } from "@winnow/gateway";
import { createLogger } from "@winnow/platform";
import { freePorts } from "./ports.js";
import type { RunningStack } from "./stack-under-test.js";

export interface InProcessGateway {
  url: string;
  close(): Promise<void>;
}

export async function startInProcessGateway(
  run: RunningStack,
  options: { requestTimeoutMs: number; deadBackends?: boolean; keyPrefix: string },
): Promise<InProcessGateway> {
  const [deadPort] = await freePorts(1);
  const at = (port: number) => `127.0.0.1:${options.deadBackends ? deadPort : port}`;
  const backends = connectBackends(
    { auth: at(run.ports.auth), renderer: at(run.ports.renderer), extractor: at(run.ports.extractor) },
    run.stack.callerTokens,
  );
  const logger = createLogger("gateway-under-test", "silent");
  const limiters = createLimiterFactory({ redisUrl: undefined, keyPrefix: options.keyPrefix, logger });
  const gateway = createGateway({
    backends,
    keyCache: { size: 100, maxAgeMs: 60_000 },
    usageFlushMs: 1_000,
    drain: new Drain(),
    logger,
    requestTimeoutMs: options.requestTimeoutMs,
    maxBodyBytes: 65_536,
    limiters,
    loginAttemptsPer15Min: 10,
    keyFailuresPerMinute: 1000,
    trustProxy: false,
  });
  const server = await startHttpServer(gateway.app, "127.0.0.1", 0);
  return {
    url: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.close(1000);
      await gateway.close();
      await limiters.close();
      backends.close();
    },
  };
}
