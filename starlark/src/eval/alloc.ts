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

export class AllocBudget {
  allocated = 0;
  constructor(readonly limits: AllocLimits) {}
}

const UNLIMITED = new AllocBudget({ maxStringLength: 2 ** 29, maxCollectionLength: 2 ** 30, maxAllocations: Infinity });

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
    throw new StarlarkError(`string too long: ${len} characters exceeds the limit of ${budget.limits.maxStringLength}`);
  charge(fresh);
}

export function chargeElems(len: number, fresh = len): void {
  if (len > budget.limits.maxCollectionLength)
    throw new StarlarkError(
      `collection too large: ${len} elements exceeds the limit of ${budget.limits.maxCollectionLength}`,
    );
  charge(fresh);
}
