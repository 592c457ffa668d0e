import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { parseGateOptions, ReceiveGate, type Ticket } from "../../lib/uploads/receive-gate";

/** Enters the gate and records when (in entry order) each caller got in. */
function entrants(gate: ReceiveGate, count: number, abandoned: (i: number) => boolean = () => false) {
  const admitted: number[] = [];
  const tickets = Array.from({ length: count }, (_, i) =>
    gate
      .enter(() => abandoned(i))
      .then((t) => {
        admitted.push(i);
        return t;
      }),
  );
  return { admitted, tickets };
}

const settle = () => sleep(0);

describe("receive gate", () => {
  it("admits as many bodies as it has slots, the rest in arrival order as slots free", async () => {
    const gate = new ReceiveGate({ slots: 2, stallMs: 60_000, holdMs: 60_000 });
    const { admitted, tickets } = entrants(gate, 5);
    await settle();
    expect(admitted).toEqual([0, 1]);
    expect(gate.load).toEqual({ holding: 2, waiting: 3 });

    (await tickets[1]).release();
    await settle();
    expect(admitted).toEqual([0, 1, 2]);
    (await tickets[1]).release(); // idempotent: frees nothing more
    await settle();
    expect(admitted).toEqual([0, 1, 2]);

    (await tickets[0]).release();
    (await tickets[2]).release();
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3, 4]);
    for (const t of tickets) (await t).release();
    expect(gate.load).toEqual({ holding: 0, waiting: 0 });
  });

  it("lets a late arrival wait behind earlier waiters even when a slot frees", async () => {
    const gate = new ReceiveGate({ slots: 1, stallMs: 60_000, holdMs: 60_000 });
    const first = await gate.enter();
    const second = gate.enter();
    first.release();
    const third = gate.enter();
    let thirdIn = false;
    void third.then(() => (thirdIn = true));
    await second;
    await settle();
    expect(thirdIn).toBe(false);
    (await second).release();
    await third;
  });

  // Timed rules run on fake timers: a loaded machine delays real intervals past the stall
  // period, which made the real-time version fail while the gate was right.
  it("takes the slot back from a holder that goes quiet, not from one that keeps sending", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "performance"] });
    try {
      const gate = new ReceiveGate({ slots: 1, stallMs: 30, holdMs: 60_000 });
      const busy = await gate.enter();
      const feeding = setInterval(() => busy.touch(), 5);
      let next: Ticket | undefined;
      const waiting = gate.enter().then((t) => (next = t));
      await vi.advanceTimersByTimeAsync(120);
      expect(next).toBeUndefined(); // four stall periods, but data kept coming
      clearInterval(feeding);
      await vi.advanceTimersByTimeAsync(29);
      expect(next).toBeUndefined(); // not quiet for a whole stall period yet
      await vi.advanceTimersByTimeAsync(30);
      await waiting; // quiet now: released within a stall period or two
      expect(gate.load.holding).toBe(1);
      busy.release(); // already given up: frees nothing
      expect(gate.load.holding).toBe(1);
      next!.release();
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes the slot back after the hold limit even from a fast holder", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "performance"] });
    try {
      const gate = new ReceiveGate({ slots: 1, stallMs: 40, holdMs: 100 });
      const big = await gate.enter();
      const feeding = setInterval(() => big.touch(), 5);
      let next: Ticket | undefined;
      const waiting = gate.enter().then((t) => (next = t));
      await vi.advanceTimersByTimeAsync(95);
      expect(next).toBeUndefined(); // data keeps coming and the hold limit is not reached
      await vi.advanceTimersByTimeAsync(30);
      await waiting;
      clearInterval(feeding);
      next!.release();
      big.release();
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets a waiter whose client left through without taking a slot", async () => {
    const gate = new ReceiveGate({ slots: 1, stallMs: 60_000, holdMs: 60_000 });
    const { admitted, tickets } = entrants(gate, 4, (i) => i === 1 || i === 2);
    await settle();
    expect(admitted).toEqual([0]);
    (await tickets[0]).release();
    await settle();
    // 1 and 2 went through slotless; 3 holds the one slot.
    expect(admitted).toEqual([0, 1, 2, 3]);
    expect(gate.load).toEqual({ holding: 1, waiting: 0 });
    (await tickets[3]).release();
  });

  it("is open when it has no slots", async () => {
    const gate = new ReceiveGate({ slots: 0, stallMs: 20, holdMs: 250 });
    const { admitted } = entrants(gate, 50);
    await settle();
    expect(admitted).toHaveLength(50);
    expect(gate.load).toEqual({ holding: 0, waiting: 0 });
  });

  it("reads its settings from the environment, refusing nonsense", () => {
    expect(parseGateOptions({})).toEqual({ slots: 4, stallMs: 20, holdMs: 250 });
    expect(parseGateOptions({ UPLOAD_RECEIVE_SLOTS: "0", UPLOAD_RECEIVE_STALL_MS: "5", UPLOAD_RECEIVE_HOLD_MS: "" })).toEqual({
      slots: 0,
      stallMs: 5,
      holdMs: 250,
    });
    expect(() => parseGateOptions({ UPLOAD_RECEIVE_SLOTS: "-1" })).toThrow(/UPLOAD_RECEIVE_SLOTS/);
    expect(() => parseGateOptions({ UPLOAD_RECEIVE_HOLD_MS: "soon" })).toThrow(/UPLOAD_RECEIVE_HOLD_MS/);
  });
});
