// A Thread is one evaluation: its frame stack, its counters and its sandbox limits.
//
// Limits (each with a default, all overridable per evaluation):
//   maxSteps            instructions executed (starlark-go's step budget)
//   maxCallDepth        nested calls; beyond it "Starlark stack overflow"
//   maxStringLength     longest string or bytes value
//   maxCollectionLength longest list, tuple, dict or set
//   maxAllocations      total string characters and collection elements created
//   maxPrintBytes       bytes passed to print; beyond it output is truncated once, with a note
//   timeoutMs           wall-clock bound; 0 = none
// Cancellation (AbortSignal or timeout) is checked every CHECK_INTERVAL steps and after every
// await. While a timeout or signal is in force the loop also yields to the event loop every
// YIELD_MS of continuous computation, so a runaway script cannot starve other requests and is
// stopped promptly.

import { AllocBudget } from "./alloc.js";
import type { FuncCode } from "./compile.js";
import { LimitError } from "./errors.js";
import type { Module, StarFunction } from "./function.js";
import type { Iter, Value } from "./value.js";

export interface Limits {
  readonly maxSteps: number;
  readonly maxCallDepth: number;
  readonly maxStringLength: number;
  readonly maxCollectionLength: number;
  readonly maxAllocations: number;
  readonly maxPrintBytes: number;
  readonly timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 100_000_000,
  maxCallDepth: 1000,
  maxStringLength: 16 * 1024 * 1024,
  maxCollectionLength: 10_000_000,
  maxAllocations: 200_000_000,
  maxPrintBytes: 1024 * 1024,
  timeoutMs: 0,
};

export const CHECK_INTERVAL = 1024;
const YIELD_MS = 10;

export class Frame {
  pc = 0;
  readonly stack: Value[] = [];
  // Active iterators of for loops and comprehensions; allocated on the first loop, since
  // most calls run none and a frame is created per call.
  iters: Iter[] | undefined = undefined;
  // A host promise raised by an instruction outside the hot switch (load), awaited by run().
  pending: Promise<Value[]> | undefined = undefined;
  constructor(
    readonly code: FuncCode,
    readonly locals: (Value | undefined)[],
    readonly fn: StarFunction | undefined,
    readonly module: Module,
  ) {}
}

export type PrintFn = (msg: string, thread: Thread) => void;
export type LoadFn = (
  module: string,
  thread: Thread,
) => Map<string, Value> | Promise<Map<string, Value>>;

export interface ThreadOptions {
  readonly name?: string;
  readonly limits?: Partial<Limits>;
  readonly signal?: AbortSignal;
  readonly print?: PrintFn;
  readonly load?: LoadFn;
}

export class Thread {
  readonly name: string;
  readonly limits: Limits;
  readonly frames: Frame[] = [];
  readonly budget: AllocBudget;
  readonly signal: AbortSignal | undefined;
  readonly print: PrintFn;
  readonly load: LoadFn | undefined;
  readonly deadline: number;
  readonly yields: boolean;
  // Host data attached to the evaluation (like starlark-go's Thread.Local).
  readonly locals = new Map<string, unknown>();
  steps = 0;
  checkAt: number;
  printedBytes = 0;
  printTruncated = false;
  private nextYield = 0;

  constructor(opts: ThreadOptions = {}) {
    this.name = opts.name ?? "main";
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    // Sixteen units of in-builtin work (element visits, comparisons) count as one step.
    this.budget = new AllocBudget(this.limits, (units) => {
      this.steps += units >> 4;
      this.checkCancel();
    });
    this.signal = opts.signal;
    this.print = opts.print ?? ((msg) => void process.stdout.write(`${msg}\n`));
    this.load = opts.load;
    this.deadline =
      this.limits.timeoutMs > 0
        ? performance.now() + this.limits.timeoutMs
        : Infinity;
    this.yields = this.signal !== undefined || this.deadline !== Infinity;
    this.nextYield = performance.now() + YIELD_MS;
    this.checkAt = Math.min(CHECK_INTERVAL, this.limits.maxSteps + 1);
  }

  // Throws when the evaluation must stop (steps, timeout, cancellation).
  checkCancel(): void {
    if (this.steps > this.limits.maxSteps) {
      throw new LimitError(
        `Starlark computation cancelled: too many steps (limit ${this.limits.maxSteps})`,
      );
    }
    if (this.signal?.aborted === true) {
      throw new LimitError(
        `Starlark computation cancelled: ${reasonText(this.signal.reason)}`,
      );
    }
    if (this.deadline !== Infinity && performance.now() >= this.deadline) {
      throw new LimitError(
        `Starlark computation cancelled: timeout after ${this.limits.timeoutMs} ms`,
      );
    }
  }

  // Called every CHECK_INTERVAL steps; returns true when the loop should yield to the event loop.
  checkpoint(): boolean {
    this.checkCancel();
    this.checkAt = Math.min(
      this.steps + CHECK_INTERVAL,
      this.limits.maxSteps + 1,
    );
    if (!this.yields) return false;
    const now = performance.now();
    if (now < this.nextYield) return false;
    this.nextYield = now + YIELD_MS;
    return true;
  }

  // Awaits a host promise, but rejects as soon as the evaluation is cancelled or times out.
  awaitHost<T>(p: Promise<T>): Promise<T> {
    if (!this.yields) return p;
    return new Promise<T>((resolve, reject) => {
      const stop = (): void => {
        cleanup();
        try {
          this.checkCancel();
          reject(new LimitError("Starlark computation cancelled"));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      };
      // The timer is the deadline itself: libuv's cached loop time can make it fire a moment
      // before performance.now() reaches the deadline, so it does not ask checkCancel.
      const timeUp = (): void => {
        cleanup();
        reject(
          new LimitError(
            `Starlark computation cancelled: timeout after ${this.limits.timeoutMs} ms`,
          ),
        );
      };
      const timer =
        this.deadline === Infinity
          ? undefined
          : setTimeout(
              timeUp,
              Math.max(0, this.deadline - performance.now()) + 1,
            );
      this.signal?.addEventListener("abort", stop, { once: true });
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.signal?.removeEventListener("abort", stop);
      };
      p.then(
        (v) => {
          cleanup();
          resolve(v);
        },
        (e: unknown) => {
          cleanup();
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  // Writes print output, enforcing maxPrintBytes.
  emitPrint(msg: string): void {
    if (this.printTruncated) return;
    const bytes = Buffer.byteLength(msg, "utf8") + 1;
    if (this.printedBytes + bytes > this.limits.maxPrintBytes) {
      this.printTruncated = true;
      this.print(
        `... print output truncated: more than ${this.limits.maxPrintBytes} bytes`,
        this,
      );
      return;
    }
    this.printedBytes += bytes;
    this.print(msg, this);
  }
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (reason === undefined) return "aborted";
  return typeof reason === "string"
    ? reason
    : (JSON.stringify(reason) ?? "aborted");
}
