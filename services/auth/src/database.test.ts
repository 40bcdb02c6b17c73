import { createLogger, WinnowError } from "@winnow/platform";
import { expect, it } from "vitest";
import { openPostgres } from "./database.js";

it("reports an unreachable Postgres as backend-unavailable, not as a query error", async () => {
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  const db = openPostgres("postgres://postgres@127.0.0.1:1/test", createLogger("test", "silent"));
  const error = await db.query("SELECT 1").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WinnowError);
  expect(error).toMatchObject({ type: "backend-unavailable", retryable: true });
  await expect(db.transaction(async () => 1)).rejects.toMatchObject({ type: "backend-unavailable" });
  await db.close();
});
