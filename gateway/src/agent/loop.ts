/**
 * The agent loop (SPEC 9). Each iteration calls the model once; its tool calls are
 * classified (skipped / auto / manual). The loop ends:
 * - on a response without tool calls: that response is the answer;
 * - on any manual call: with auto calls beside it, they run and the mixed response (SPEC 4.5)
 *   is returned; with none, the response goes back as it is (skipped calls removed);
 * - when `maxDepth` model calls were made: the last response goes back with its tool calls
 *   still pending, unexecuted, so the caller sees the current state.
 * Otherwise the auto calls of the iteration run in parallel, each bounded by `timeoutMs`,
 * skipped calls get a result explaining why they did not run (providers need one result per
 * call), and the model is called again. Usage is summed over every iteration.
 */
import { mixedContent } from "./mixed.js";
import type {
  AgentOptions,
  AgentResult,
  Decision,
  Dialect,
  Json,
  RunContext,
  ToolCall,
  ToolOutcome,
} from "./types.js";
import { addUsage } from "./usage.js";

export const defaultIterationRequestId = (
  parentId: string,
  iteration: number,
): string => `${parentId}-${iteration}`;

interface Classified {
  readonly call: ToolCall;
  readonly decision: Decision;
}

interface Ran {
  readonly call: ToolCall;
  readonly label: string;
  readonly text: string;
}

export async function runAgent(
  dialect: Dialect,
  body: Json,
  opts: AgentOptions,
): Promise<AgentResult> {
  const makeId = opts.iterationRequestId ?? defaultIterationRequestId;
  let request = dialect.prepare(body);
  let usage: Json | undefined;
  const done = (
    response: Json,
    iterations: number,
    stop: AgentResult["stop"],
  ): AgentResult => ({
    response: usage ? dialect.withUsage(response, usage) : response,
    iterations,
    stop,
  });
  for (let iteration = 1; ; iteration++) {
    const requestId = makeId(opts.parentRequestId, iteration);
    const response = await opts.callModel(request, { requestId, iteration });
    usage = addUsage(usage, dialect.usage(response));
    const calls = dialect.toolCalls(response);
    if (calls.length === 0) return done(response, iteration, "final");
    const classified = calls.map((call) => ({
      call,
      decision: opts.classify(call),
    }));
    const pending = classified
      .filter((c) => c.decision.kind !== "skipped")
      .map((c) => c.call);
    if (iteration >= opts.maxDepth)
      return done(dialect.keepCalls(response, pending), iteration, "depth");
    const manual = classified
      .filter((c) => c.decision.kind === "manual")
      .map((c) => c.call);
    const auto = classified.filter((c) => c.decision.kind === "auto");
    if (manual.length > 0 && auto.length === 0)
      return done(dialect.keepCalls(response, manual), iteration, "manual");
    const ctx = { signal: opts.signal, requestId, timeoutMs: opts.timeoutMs };
    const ran = await Promise.all(auto.map((c) => runOne(c, ctx)));
    if (manual.length > 0)
      return done(
        dialect.mixed(response, mixedContent(ran), manual),
        iteration,
        "manual",
      );
    const results = classified.map((c) => resultFor(c, ran));
    request = dialect.appendTurn(request, response, results);
  }
}

function resultFor(
  c: Classified,
  ran: readonly Ran[],
): { call: ToolCall; text: string } {
  if (c.decision.kind === "skipped")
    return {
      call: c.call,
      text: `The tool ${c.call.name} was not executed: ${c.decision.reason}.`,
    };
  return { call: c.call, text: ran.find((r) => r.call === c.call)?.text ?? "" };
}

async function runOne(c: Classified, ctx: RunContext): Promise<Ran> {
  if (c.decision.kind !== "auto")
    throw new Error("runOne takes auto calls only");
  const { label, run } = c.decision;
  let args: Record<string, unknown>;
  try {
    args = parseArgs(c.call.arguments);
  } catch (e) {
    return {
      call: c.call,
      label,
      text: `Error: the arguments of ${c.call.name} are not a JSON object (${(e as Error).message}); the tool was not called.`,
    };
  }
  const outcome = await withTimeout(run, args, ctx, c.call.name);
  return { call: c.call, label, text: outcome.text };
}

function parseArgs(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error(
      `got ${Array.isArray(parsed) ? "an array" : typeof parsed}`,
    );
  return parsed as Record<string, unknown>;
}

/**
 * The registry bounds its own calls by the timeout; this bound holds for every tool (extra
 * tools too) and makes sure the loop never waits longer, whatever the tool does.
 */
async function withTimeout(
  run: (args: Record<string, unknown>, ctx: RunContext) => Promise<ToolOutcome>,
  args: Record<string, unknown>,
  ctx: RunContext,
  name: string,
): Promise<ToolOutcome> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("timeout"));
      resolve({
        text: `Error: the tool ${name} did not answer within ${ctx.timeoutMs} ms (tool_execution_timeout)`,
        isError: true,
      });
    }, ctx.timeoutMs + 50);
  });
  try {
    return await Promise.race([
      run(args, { ...ctx, signal: controller.signal }).catch((e: unknown) => ({
        text: `Error: ${e instanceof Error ? e.message : String(e)}`,
        isError: true,
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
