/**
 * Each status's one-line meaning, as the client gives it to show beside a value (test/field-status-meanings.test.ts
 * keeps the list in step with the gateway's).
 */
import { describeStatus, type FieldStatus, STATUS_MEANINGS } from "@winnow/client";
import { describe, expect, it } from "vitest";

describe("describeStatus", () => {
  it("says what each status means in one line", () => {
    const statuses = Object.keys(STATUS_MEANINGS) as FieldStatus[];
    expect(statuses).toContain("not-found");
    for (const status of statuses) expect(describeStatus(status)).toBe(STATUS_MEANINGS[status]);
    expect(describeStatus("not-found")).toMatch(/^null: .*page may state one/);
  });

  it("says a status a newer server sends is one this client does not know, whatever its name", () => {
    for (const status of ["retracted", "toString", "__proto__"])
      expect(describeStatus(status)).toBe(`A status this client does not know (${status}): see the API docs.`);
  });
});
