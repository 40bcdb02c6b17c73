/** Delivery slots: at most so many in flight per receiver (host and port) and per account, given back once. */
import { describe, expect, it } from "vitest";
import { DeliverySlots } from "./delivery-slots.js";

describe("DeliverySlots", () => {
  const slow = new URL("https://slow.example:8443/hooks?token=a");
  const fast = new URL("https://fast.example/hooks");

  it("holds a receiver and an account each to their slots, whichever is full first", () => {
    const slots = new DeliverySlots(2);
    const taken = [slots.take(slow, "a"), slots.take(new URL("https://slow.example:8443/other"), "b")];
    expect(taken.every(Boolean)).toBe(true);
    // The receiver is full, whoever asks; another receiver of the same host on another port is another receiver.
    expect(slots.take(slow, "c")).toBeUndefined();
    expect(slots.take(new URL("https://slow.example/hooks"), "c")).toBeDefined();
    // Account a has one slot left: one more of its deliveries, to any receiver, then none.
    expect(slots.take(fast, "a")).toBeDefined();
    expect(slots.take(new URL("https://third.example/"), "a")).toBeUndefined();
    // A slot refused for the account took none of the receiver's: both of third.example's are free.
    const third = new URL("https://third.example/");
    expect([slots.take(third, "d"), slots.take(third, "e"), slots.take(third, "f")].map(Boolean)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("gives a slot back once, however often its release is called", () => {
    const slots = new DeliverySlots(1);
    const release = slots.take(slow, "a")!;
    expect(slots.take(slow, "b")).toBeUndefined();
    release();
    release();
    const again = slots.take(slow, "b");
    expect(again).toBeDefined();
    expect(slots.take(slow, "c")).toBeUndefined();
  });
});
