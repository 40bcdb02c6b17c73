import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { deadlineSignal } from "./deadline.js";

it("aborts when ms pass", async () => {
  const deadline = deadlineSignal({ ms: 20 });
  expect(deadline.signal.aborted).toBe(false);
  await sleep(60);
  expect(deadline.signal.aborted).toBe(true);
  deadline.dispose();
});

it("aborts at an absolute deadline, or at once when it has passed", async () => {
  const soon = deadlineSignal({ deadline: new Date(Date.now() + 20) });
  await sleep(60);
  expect(soon.signal.aborted).toBe(true);
  soon.dispose();
  const past = deadlineSignal({ deadline: new Date(Date.now() - 1) });
  expect(past.signal.aborted).toBe(true);
  past.dispose();
});

it("takes whichever of deadline and ms comes first", async () => {
  const deadline = deadlineSignal({ deadline: new Date(Date.now() + 60_000), ms: 20 });
  await sleep(60);
  expect(deadline.signal.aborted).toBe(true);
  deadline.dispose();
});

it("follows the caller's signal, already aborted or later, and never fires without a limit", async () => {
  const caller = new AbortController();
  const deadline = deadlineSignal({ signal: caller.signal });
  await sleep(20);
  expect(deadline.signal.aborted).toBe(false);
  caller.abort();
  expect(deadline.signal.aborted).toBe(true);
  deadline.dispose();
  expect(deadlineSignal({ signal: AbortSignal.abort(), ms: 60_000 }).signal.aborted).toBe(true);
});

it("stops its timer and lets go of the caller's signal on dispose", async () => {
  const caller = new AbortController();
  const deadline = deadlineSignal({ signal: caller.signal, ms: 20 });
  deadline.dispose();
  await sleep(60);
  caller.abort();
  expect(deadline.signal.aborted).toBe(false);
});
