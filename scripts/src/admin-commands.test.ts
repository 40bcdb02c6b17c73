import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AuthClient, createClient, promiseClient, WinnowError } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TOKENS } from "../../test/support/caller-tokens.js";
import { freePorts } from "../../test/support/ports.js";
import { type ServiceProcess, startService } from "../../test/support/service-process.js";
import { runAdmin, UsageError } from "./admin-commands.js";

describe("npm run admin, against a real auth process", () => {
  let auth: ServiceProcess;
  let client: AuthClient;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-admin-"));
    const [port] = (await freePorts(1)) as [number];
    auth = await startService("auth", { GRPC_PORT: String(port), WINNOW_DATA_DIR: dataDir }, `127.0.0.1:${port}`);
    client = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${port}`, TEST_TOKENS.admin));
  });
  afterAll(async () => {
    client?.grpc.close();
    await auth?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    await runAdmin(argv, client, (line) => lines.push(line));
    return lines.join("\n");
  };
  const keyIn = (text: string) => /wnw_\w+/.exec(text)![0];
  const validate = (apiKey: string) => client.validateKey({ apiKey });

  it("creates an account, rotates its key by email, lists it and shows its usage", async () => {
    const created = await run("create-account", "Ops@Example.com");
    expect(created).toMatch(/^account [0-9a-f-]{36} \(ops@example\.com\)\nAPI key: wnw_/);
    const firstKey = keyIn(created);
    expect(await validate(firstKey)).toMatchObject({ valid: true });

    const rotated = await run("rotate-key", "ops@example.com");
    const secondKey = keyIn(rotated);
    expect(await validate(firstKey)).toMatchObject({ valid: false });
    const accountId = (await validate(secondKey)).accountId;
    await client.recordUsage({ keyId: secondKey.slice(4, 15), scrapes: 2, tokensIn: 70, tokensOut: 9 });

    const listed = (await run("list-accounts")).split("\n");
    expect(listed[0]).toMatch(/^account id\s+email\s+plan\s+created\s+key id\s+scrapes\s+tokens in\s+tokens out$/);
    const row = listed.find((line) => line.includes("ops@example.com"))!.split(/\s+/);
    expect(row).toEqual([
      accountId,
      "ops@example.com",
      "default",
      expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      secondKey.slice(4, 15),
      "2",
      "70",
      "9",
    ]);
    expect(listed.some((line) => line.includes("dev@localhost"))).toBe(true);

    const usage = (await run("usage", accountId, "--days", "7")).split("\n");
    expect(usage[1]!.split(/\s+/)).toEqual([
      new Date().toISOString().slice(0, 10),
      secondKey.slice(4, 15),
      "2",
      "70",
      "9",
    ]);
  });

  it.each([
    [[], /no command/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["rotate-key"], /rotate-key needs an account id or email/],
    [["usage", "dev@localhost", "--days", "0"], /--days must be/],
    [["list-accounts", "extra"], /unexpected arguments: extra/],
  ])("refuses %j with a usage error", async (argv, message) => {
    await expect(run(...argv)).rejects.toThrow(UsageError);
    await expect(run(...argv)).rejects.toThrow(message);
  });

  it("reports auth's answer for an unknown account or a bad email", async () => {
    const unknown = await run("rotate-key", "nobody@example.com").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(WinnowError);
    expect((unknown as WinnowError).type).toBe("not-found");
    const bad = await run("create-account", "not-an-email").catch((error: unknown) => error);
    expect((bad as WinnowError).type).toBe("invalid-request");
  });
});
