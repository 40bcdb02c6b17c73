import { WinnowError } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { PageSlots } from "./page-slots.js";

const never = new AbortController().signal;

describe("PageSlots", () => {
  it("hands out slots up to the limit, queues the rest in order, and passes released slots on", async () => {
    const slots = new PageSlots(2, 2);
    const first = await slots.acquire("a", never);
    await slots.acquire("a", never);
    const order: string[] = [];
    const third = slots.acquire("a", never).then((release) => {
      order.push("third");
      return release;
    });
    const fourth = slots.acquire("a", never).then((release) => {
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
    await slots.acquire("a", never);
    void slots.acquire("a", never);
    const error = await slots.acquire("a", never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WinnowError);
    expect(error).toMatchObject({ type: "overloaded", retryable: true });
    expect((error as WinnowError).retryAfterMs).toBeGreaterThan(0);
  });

  it("drops a waiter whose signal aborts, as overloaded", async () => {
    const slots = new PageSlots(1, 4);
    const release = await slots.acquire("a", never);
    const controller = new AbortController();
    const waiting = slots.acquire("a", controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ type: "overloaded" });
    expect(slots.queued).toBe(0);
    release();
    expect(slots.active).toBe(0);
  });

  it("holds each account below its cap and serves waiting accounts in turn, not in arrival order", async () => {
    const slots = new PageSlots(3, 10, 2);
    const held = [await slots.acquire("a", never), await slots.acquire("a", never)];
    const order: string[] = [];
    const wait = (account: string) =>
      slots.acquire(account, never).then((release) => {
        order.push(account);
        return release;
      });
    // a is at its cap: its third render waits although a page is free, and b's takes that page at once.
    const aThird = wait("a");
    const b = await wait("b");
    expect([slots.active, slots.queued]).toEqual([3, 1]);
    const more = [wait("a"), wait("b"), wait("c")];
    held[0]();
    // a's page goes to the account whose turn it is (a waited first), then b and c go before a's next render.
    (await aThird)();
    b();
    await Promise.all(more.slice(1));
    expect(order).toEqual(["b", "a", "b", "c"]);
    expect(slots.queued).toBe(1);
  });
});
