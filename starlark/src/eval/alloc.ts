// Allocation accounting for the sandbox.
//
// Operations that create strings or collections charge their size here before allocating,
// so `"x" * 10**9`, `list(range(10**9))` and repeated doubling fail with a clear error
// instead of exhausting the process. The interpreter points `budget` at the running
// thread's counters each time it enters or resumes its loop; JS runs one evaluation at a
// time, so a module-level pointer is exact even with many evaluations interleaved at awaits.
//
// What is charged: the length of every string built by repetition, join, format or
// concatenation (for concatenation only the appended part, so building a string in a loop
// costs its final length, not the quadratic sum), and every element added to a list, tuple,
// dict or set.

import { StarlarkError } from "./errors.js";

export interface AllocLimits {
  readonly maxStringLength: number;
  readonly maxCollectionLength: number;
  readonly maxAllocations: number;
}

// Work done inside one instruction (scanning a long list for `in`, comparing long
// sequences, sorting) is counted too: every WORK_INTERVAL units the budget calls onWork, which
// the thread uses to charge steps and check its timeout and cancellation, so a single costly
// builtin cannot run past them.
const WORK_INTERVAL = 1 << 16;

export class AllocBudget {
  allocated = 0;
  work = 0;
  private nextCheck = WORK_INTERVAL;
  constructor(
    readonly limits: AllocLimits,
    private readonly onWork: (units: number) => void = () => {},
  ) {}
  addWork(n: number): void {
    this.work += n;
    if (this.work < this.nextCheck) return;
    const units = this.work - this.nextCheck + WORK_INTERVAL;
    this.nextCheck = this.work + WORK_INTERVAL;
    this.onWork(units);
  }
}

const UNLIMITED = new AllocBudget({
  maxStringLength: 2 ** 29,
  maxCollectionLength: 2 ** 30,
  maxAllocations: Infinity,
});

export let budget: AllocBudget = UNLIMITED;

export function setBudget(b: AllocBudget | undefined): void {
  budget = b ?? UNLIMITED;
}

function charge(n: number): void {
  budget.allocated += n;
  if (budget.allocated > budget.limits.maxAllocations)
    throw new StarlarkError(
      `allocation limit exceeded: more than ${budget.limits.maxAllocations} elements allocated in total`,
    );
}

// Check and charge a string of the given final length, of which `fresh` characters are new.
export function chargeString(len: number, fresh = len): void {
  if (len > budget.limits.maxStringLength)
    throw new StarlarkError(
      `string too long: ${len} characters exceeds the limit of ${budget.limits.maxStringLength}`,
    );
  charge(fresh);
}

// Charges n units of work done by a builtin or operator within one step.
export function chargeWork(n: number): void {
  budget.addWork(n);
}

export function chargeElems(len: number, fresh = len): void {
  if (len > budget.limits.maxCollectionLength)
    throw new StarlarkError(
      `collection too large: ${len} elements exceeds the limit of ${budget.limits.maxCollectionLength}`,
    );
  charge(fresh);
}
