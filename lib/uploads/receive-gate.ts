/**
 * Admits request bodies a few at a time: Node advances every socket together, so 200 uploads all
 * finished at once and the first reply came as late as the last. A holder gives its slot up on
 * completion, after `stallMs` without data, or after `holdMs`, then flows on ungated.
 */
import { z } from "zod";
import { optionalInt } from "@/lib/config/env-fields";

export interface GateOptions {
  slots: number;
  stallMs: number;
  holdMs: number;
}

export interface Ticket {
  touch(): void;
  release(): void;
}

interface Holder {
  admittedAt: number;
  lastDataAt: number;
  released: boolean;
}

const OPEN: Ticket = { touch() {}, release() {} };

export class ReceiveGate {
  private readonly holders = new Set<Holder>();
  private readonly waiting: { admit: (holder: Holder) => void; abandoned: () => boolean }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: GateOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when the body may be read; an `abandoned` waiter is skipped. */
  async enter(abandoned: () => boolean = () => false): Promise<Ticket> {
    if (this.options.slots <= 0) return OPEN;
    const holder =
      this.holders.size < this.options.slots && !this.waiting.length
        ? this.hold()
        : await new Promise<Holder>((admit) => {
            this.waiting.push({ admit, abandoned });
            this.watch();
          });
    return {
      touch: () => {
        holder.lastDataAt = this.now();
      },
      release: () => this.leave(holder),
    };
  }

  get load(): { holding: number; waiting: number } {
    return { holding: this.holders.size, waiting: this.waiting.length };
  }

  private leave(holder: Holder): void {
    if (holder.released) return;
    holder.released = true;
    this.holders.delete(holder);
    this.admitNext();
  }

  private hold(): Holder {
    const at = this.now();
    const holder: Holder = { admittedAt: at, lastDataAt: at, released: false };
    this.holders.add(holder);
    return holder;
  }

  private admitNext(): void {
    while (this.holders.size < this.options.slots && this.waiting.length) {
      const next = this.waiting.shift()!;
      // A waiter whose client left goes through without a slot (its receive fails at once):
      // it must not keep a live one waiting.
      next.admit(next.abandoned() ? { admittedAt: 0, lastDataAt: 0, released: true } : this.hold());
    }
    if (!this.waiting.length) this.unwatch();
  }

  private watch(): void {
    if (this.timer) return;
    const period = Math.max(1, Math.floor(this.options.stallMs / 2));
    this.timer = setInterval(() => this.sweep(), period);
    this.timer.unref();
  }

  private unwatch(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const holder of [...this.holders]) {
      if (now - holder.lastDataAt >= this.options.stallMs || now - holder.admittedAt >= this.options.holdMs) this.leave(holder);
    }
    if (!this.waiting.length) this.unwatch();
  }
}

const schema = z.object({
  UPLOAD_RECEIVE_SLOTS: optionalInt(0),
  UPLOAD_RECEIVE_STALL_MS: optionalInt(1),
  UPLOAD_RECEIVE_HOLD_MS: optionalInt(1),
});

export function parseGateOptions(source: Record<string, string | undefined> = process.env): GateOptions {
  const parsed = schema.safeParse(source);
  if (!parsed.success)
    throw new Error(`Invalid upload receive settings: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
  return {
    slots: parsed.data.UPLOAD_RECEIVE_SLOTS ?? 4,
    stallMs: parsed.data.UPLOAD_RECEIVE_STALL_MS ?? 20,
    holdMs: parsed.data.UPLOAD_RECEIVE_HOLD_MS ?? 250,
  };
}

let shared: ReceiveGate | undefined;
export function receiveGate(): ReceiveGate {
  shared ??= new ReceiveGate(parseGateOptions());
  return shared;
}
