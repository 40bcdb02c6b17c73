import { WinnowError } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { AccountSlots } from "./account-slots.js";

/** Starts `account`'s extraction named `name`: noted in `started` when it gets its slot, its release kept. */
function start(
  slots: AccountSlots,
  account: string,
  name: string,
  started: string[],
  releases: Map<string, () => void>,
) {
  return slots.acquire(account, new AbortController().signal).then((release) => {
    started.push(name);
    releases.set(name, release);
  });
}

describe("account slots", () => {
  it("holds an account to its share and serves waiting accounts in turn", async () => {
    const slots = new AccountSlots({ workers: 3, perAccount: 2, maxQueue: 30 });
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    const calls = ["a1", "a2", "a3", "a4", "a5"].map((name) => start(slots, "a", name, started, releases));
    calls.push(start(slots, "b", "b1", started, releases), start(slots, "b", "b2", started, releases));
    await Promise.resolve();
    // a holds its two; b takes the third worker though a asked first.
    expect(started).toEqual(["a1", "a2", "b1"]);
    releases.get("a1")!();
    releases.get("b1")!();
    await Promise.resolve();
    // Two workers free: a's next and b's next, in turn.
    expect(started).toEqual(["a1", "a2", "b1", "a3", "b2"]);
    for (const name of ["a2", "a3", "b2"]) releases.get(name)!();
    await Promise.all(calls);
    expect(started).toEqual(["a1", "a2", "b1", "a3", "b2", "a4", "a5"]);
  });

  it("refuses an account's extraction beyond its share of the queue, and forgets one whose deadline passed", async () => {
    // An account's share: 2 of 4 workers, so 2 of the queue's 4 places.
    const slots = new AccountSlots({ workers: 4, perAccount: 2, maxQueue: 4 });
    const held = await Promise.all([0, 1].map(() => slots.acquire("a", new AbortController().signal)));
    const gone = new AbortController();
    const waiting = slots.acquire("a", gone.signal);
    const next = slots.acquire("a", new AbortController().signal);
    await expect(slots.acquire("a", new AbortController().signal)).rejects.toSatisfy(
      (error) => error instanceof WinnowError && error.type === "overloaded",
    );
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    // Its place is free again; the next in line gets the first worker released.
    const again = slots.acquire("a", new AbortController().signal);
    held[0]!();
    await next;
    held[1]!();
    await again;
  });

  it("lets internal callers (no tenant) use every worker", async () => {
    const slots = new AccountSlots({ workers: 2, perAccount: 1, maxQueue: 2 });
    await Promise.all([0, 1].map(() => slots.acquire("", new AbortController().signal)));
  });
});
