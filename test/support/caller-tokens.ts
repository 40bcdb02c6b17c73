import * as grpc from "@grpc/grpc-js";
import { createClient } from "@winnow/platform";
import { tokenEnv } from "../../scripts/src/caller-tokens.js";

/** Fixed caller tokens for tests that start services or gRPC servers by hand. */
export const TEST_TOKENS = {
  gateway: "test-gateway-token-0123456789abcdefghij",
  admin: "test-admin-token-0123456789abcdefghijkl",
  service: "test-service-token-0123456789abcdefghij",
} as const;

/** The renderer's and the extractor's page signing key in tests. */
export const TEST_PAGE_SIGNING_KEY = "test-page-signing-key-0123456789abcdef";

/** Every role's variable set to its test token. */
export const TEST_TOKEN_ENV = tokenEnv(TEST_TOKENS);

type Done = (error: grpc.ServiceError | null) => void;

/**
 * How one unary call ends, as the raw gRPC status (no client-side interpretation), made with
 * this token, or with no credential at all when token is undefined.
 */
export function callStatus<C extends grpc.Client>(
  Client: new (address: string, credentials: grpc.ChannelCredentials) => C,
  address: string,
  token: string | undefined,
  call: (client: C, done: Done) => void,
): Promise<{ code: grpc.status; details: string }> {
  const client =
    token === undefined ? new Client(address, grpc.credentials.createInsecure()) : createClient(Client, address, token);
  return new Promise((resolve) =>
    call(client, (error) => {
      client.close();
      resolve({ code: error?.code ?? grpc.status.OK, details: error?.details ?? "" });
    }),
  );
}
