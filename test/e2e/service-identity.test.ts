/**
 * Internal gRPC credentials on the stack as `npm start` runs it (real processes, tokens
 * generated into the data directory): every backend refuses a call without its caller token,
 * auth keeps account administration to the operator's token, the renderer and the extractor
 * hold no token that opens auth, the jobs worker takes the gateway's calls only, and the
 * operator CLI works with the token kept on disk.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { checkHealth } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { ExtractorServiceClient } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { JobsServiceClient } from "@winnow/platform/gen/winnow/jobs/v1/jobs.js";
import { RendererServiceClient } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { callStatus } from "../support/caller-tokens.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

const { UNAUTHENTICATED, PERMISSION_DENIED, OK, NOT_FOUND } = grpc.status;
const WRONG_TOKEN = "a-token-no-service-of-this-stack-was-given";

let run: RunningStack;
beforeAll(async () => {
  run = await launchStack(PAGES);
});
afterAll(async () => {
  await run?.stop();
});

const at = (service: "auth" | "renderer" | "extractor" | "jobs") => `127.0.0.1:${run.ports[service]}`;
const listAccounts = (token: string | undefined) =>
  callStatus(AuthServiceClient, at("auth"), token, (client, done) => client.listAccounts({}, done));
const rotateKey = (token: string | undefined, accountId: string) =>
  callStatus(AuthServiceClient, at("auth"), token, (client, done) => client.rotateKey({ accountId }, done));
const render = (token: string | undefined) =>
  callStatus(RendererServiceClient, at("renderer"), token, (client, done) =>
    client.render({ url: `${run.site.origin}/product` }, done),
  );
const extract = (token: string | undefined) =>
  callStatus(ExtractorServiceClient, at("extractor"), token, (client, done) =>
    client.extract(
      {
        url: "https://shop.example/p",
        html: "<h1>Lamp</h1>",
        schemaJson: '{"title":"string"}',
        taskDescription: "",
        options: undefined,
        pageWarnings: [],
        wantNextPage: false,
        knownFields: [],
        pageSignature: new Uint8Array(),
        fieldHints: {},
        fieldRules: {},
      },
      done,
    ),
  );

const getJob = (token: string | undefined) =>
  callStatus(JobsServiceClient, at("jobs"), token, (client, done) =>
    client.getJob({ accountId: randomUUID(), jobId: randomUUID(), cursor: 0, limit: 1 }, done),
  );

describe("internal gRPC credentials, on the stack's own processes", () => {
  it("refuses a call without a credential, or with a wrong token, on auth, the renderer and the extractor", async () => {
    for (const token of [undefined, WRONG_TOKEN]) {
      for (const [service, status] of [
        ["auth", await listAccounts(token)],
        ["renderer", await render(token)],
        ["extractor", await extract(token)],
        ["jobs", await getJob(token)],
      ] as const) {
        expect(status.code, `${service} with ${token ?? "no credential"}`).toBe(UNAUTHENTICATED);
        expect(status.details, service).toMatch(/WINNOW_\w+_TOKEN/);
      }
    }
  });

  it("keeps health checks open for the probes", async () => {
    for (const service of ["auth", "renderer", "extractor", "jobs"] as const)
      expect(await checkHealth(at(service))).toBe("SERVING");
  });

  it("serves the jobs worker to the gateway's token alone (its batch routes), never the service token", async () => {
    const { gateway, service, admin } = run.stack.callerTokens;
    // Past the credential check: no such job for that account.
    expect((await getJob(gateway)).code).toBe(NOT_FOUND);
    expect((await getJob(service)).code).toBe(UNAUTHENTICATED);
    expect((await getJob(admin)).code).toBe(UNAUTHENTICATED);
  });

  it("serves the renderer and the extractor with the service token, and nothing of auth", async () => {
    const { service } = run.stack.callerTokens;
    expect((await render(service)).code).toBe(OK);
    expect((await extract(service)).code).toBe(OK);
    const accountId = randomUUID();
    expect((await listAccounts(service)).code).toBe(UNAUTHENTICATED);
    expect((await rotateKey(service, accountId)).code).toBe(UNAUTHENTICATED);
  });

  it("keeps listing accounts and rotating any account's key to the operator: the gateway's token is refused", async () => {
    const { gateway, admin } = run.stack.callerTokens;
    expect((await listAccounts(gateway)).code).toBe(PERMISSION_DENIED);
    expect((await rotateKey(gateway, randomUUID())).code).toBe(PERMISSION_DENIED);
    // The gateway's token opens auth, not the renderer or the extractor (the service token does).
    expect((await render(gateway)).code).toBe(UNAUTHENTICATED);
    expect((await listAccounts(admin)).code).toBe(OK);
  });

  it("gives the renderer and the extractor only the service token, and generates the tokens owner-only", async () => {
    const tokens = run.stack.callerTokens;
    for (const service of ["renderer", "extractor"] as const) {
      const environ = await readFile(`/proc/${run.stack.process(service).pid}/environ`, "utf8");
      expect(environ, service).toContain(`\0WINNOW_SERVICE_TOKEN=${tokens.service}\0`);
      expect(environ, service).not.toContain(tokens.gateway);
      expect(environ, service).not.toContain(tokens.admin);
    }
    for (const role of ["gateway", "admin", "service"] as const) {
      const file = path.join(run.stack.dataDir, `${role}-token`);
      expect((await readFile(file, "utf8")).trim()).toBe(tokens[role]);
      expect((await stat(file)).mode & 0o777, role).toBe(0o600);
    }
    expect(new Set(Object.values(tokens)).size).toBe(3);
  });

  it("runs the operator CLI with the admin token kept in the data directory, and stops it without one", async () => {
    const admin = (dataDir: string) =>
      promisify(execFile)(process.execPath, [path.join(REPO_ROOT, "scripts/dist/admin.js"), "list-accounts"], {
        env: { PATH: process.env.PATH, AUTH_ADDR: at("auth"), WINNOW_DATA_DIR: dataDir },
      }).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (error: { code: number; stderr: string }) => ({ code: error.code, output: error.stderr }),
      );
    expect(await admin(run.stack.dataDir)).toMatchObject({ code: 0, output: expect.stringContaining("dev@localhost") });
    const empty = await mkdtemp(path.join(tmpdir(), "winnow-no-token-"));
    try {
      expect(await admin(empty)).toEqual({
        code: 1,
        output: expect.stringContaining("WINNOW_ADMIN_TOKEN is unset and"),
      });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
