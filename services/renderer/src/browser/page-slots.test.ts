import { WinnowError } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { PageSlots } from "./page-slots.js";

const never = new AbortController().signal;

describe("PageSlots", () => {
  it("hands out slots up to the limit, queues the rest in order, and passes released slots on", async () => {
    const slots = new PageSlots(2, 2);
    const first = await slots.acquire(never);
    await slots.acquire(never);
    const order: string[] = [];
    const third = slots.acquire(never).then((release) => {
      order.push("third");
      return release;
    });
    const fourth = slots.acquire(never).then((release) => {
      order.push("fourth");
      return release;
    });
    expect([slots.active, slots.queued]).toEqual([2, 2]);

    first();
    first(); // releasing twice frees one slot only
    (await third)();
    await fourth;
    expect(order).toEqual(["third", "fourth"]);
    expect([slots.active, slots.queued]).toEqual([2, 0]);
  });

  it("answers overloaded with a retry hint when the queue is full", async () => {
    const slots = new PageSlots(1, 1);
    await slots.acquire(never);
    void slots.acquire(never);
    const error = await slots.acquire(never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WinnowError);
    expect(error).toMatchObject({ type: "overloaded", retryable: true });
    expect((error as WinnowError).retryAfterMs).toBeGreaterThan(0);
  });

  it("drops a waiter whose signal aborts, as overloaded", async () => {
    const slots = new PageSlots(1, 4);
    const release = await slots.acquire(never);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ type: "overloaded" });
    expect(slots.queued).toBe(0);
    release();
    expect(slots.active).toBe(0);
  });
});
