import { createHash, timingSafeEqual } from "node:crypto";
import * as grpc from "@grpc/grpc-js";

/**
 * Who may call an internal gRPC service. Each role proves itself with a shared-secret token
 * of its own, sent as `authorization: Bearer <token>` on every call:
 * - gateway: the gateway at auth (sign-up, log-in, key checks, usage, the revocation feed);
 * - admin: the operator CLI at auth (everything, account administration included);
 * - service: every caller of the renderer and the extractor (the gateway, other internal services).
 * The renderer and the extractor hold only the service token, so a process that runs
 * untrusted pages in Chromium holds nothing that opens auth.
 */
export type CallerRole = "gateway" | "admin" | "service";

/** The environment variable that holds each role's token. */
export const TOKEN_VARIABLES: Readonly<Record<CallerRole, string>> = {
  gateway: "WINNOW_GATEWAY_TOKEN",
  admin: "WINNOW_ADMIN_TOKEN",
  service: "WINNOW_SERVICE_TOKEN",
};

/** The tokens a server accepts, by the role each one proves: several for a role while its token rotates. */
export type CallerTokens = Partial<Record<CallerRole, string | readonly string[]>>;

/** Shortest token the services accept: 32 characters (e.g. 24 random bytes in base64). */
export const MIN_TOKEN_LENGTH = 32;

const HEADER = "authorization";
const BEARER = /^Bearer (.+)$/;

/** Kubernetes' gRPC probes send no metadata, so health checks stay open (they reveal only readiness). */
const OPEN_PATHS = /^\/grpc\.health\.v1\.Health\//;

/** Client side: sends the token with every call of a channel, unary and streaming. */
export function bearerToken(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(HEADER, `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}

export interface CallerCheckOptions {
  tokens: CallerTokens;
  /** The roles that may call a method (by its path, /package.Service/Method). */
  rolesFor(path: string): readonly CallerRole[];
  /** Told of every refused call, for the log. */
  onRefused(refusal: { path: string; peer: string; code: grpc.status; role?: CallerRole }): void;
}

/**
 * Server side: refuses a call without a token this server accepts (UNAUTHENTICATED), or whose
 * role may not call the method (PERMISSION_DENIED), before the handler sees it. Tokens are
 * compared as SHA-256 digests in constant time, so neither their content nor their length leaks.
 */
export function callerCheck({ tokens, rolesFor, onRefused }: CallerCheckOptions): grpc.ServerInterceptor {
  const accepted = Object.entries(tokens).flatMap(([role, given]) =>
    [given ?? []].flat().map((token) => ({ role: role as CallerRole, digest: digest(token) })),
  );
  if (accepted.length === 0) throw new Error("a gRPC server needs at least one caller token");
  for (const [i, a] of accepted.entries()) {
    const twin = accepted.slice(i + 1).find((b) => b.role !== a.role && timingSafeEqual(a.digest, b.digest));
    if (twin) {
      throw new Error(
        `${TOKEN_VARIABLES[a.role]} and ${TOKEN_VARIABLES[twin.role]} hold the same token; each role needs its own`,
      );
    }
  }
  const variables = [...new Set(accepted.map((a) => TOKEN_VARIABLES[a.role]))].join(" or ");

  const roleOf = (metadata: grpc.Metadata): CallerRole | undefined => {
    const presented = BEARER.exec(String(metadata.get(HEADER)[0] ?? ""))?.[1];
    if (presented === undefined) return undefined;
    const presentedDigest = digest(presented);
    return accepted.find((a) => timingSafeEqual(a.digest, presentedDigest))?.role;
  };

  return (method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, pass) {
            if (OPEN_PATHS.test(method.path)) return pass(metadata);
            const role = roleOf(metadata);
            const allowed = rolesFor(method.path);
            if (role && allowed.includes(role)) return pass(metadata);
            const refusal = role
              ? {
                  code: grpc.status.PERMISSION_DENIED,
                  details: `the ${role} credential may not call ${method.path} (it needs ${allowed.map((r) => TOKEN_VARIABLES[r]).join(" or ")})`,
                }
              : {
                  code: grpc.status.UNAUTHENTICATED,
                  details: metadata.get(HEADER).length
                    ? `the credential is not one this service accepts (${variables})`
                    : `internal calls need a credential: metadata "authorization: Bearer <token>" with ${variables}`,
                };
            onRefused({ path: method.path, peer: call.getPeer(), code: refusal.code, role });
            call.sendStatus({ ...refusal, metadata: new grpc.Metadata() });
          },
        });
      },
    });
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
