/**
 * The agent loop's view of the world. It knows nothing of HTTP, providers or the registry:
 * chat/ hands it a dialect (Chat Completions or Responses), a way to call the model and a
 * way to classify and run each tool call.
 */

export type Json = Record<string, unknown>;

/** One tool call the model made, in either API's shape. */
export interface ToolCall {
  readonly id: string;
  /** The function name as the model called it (an alias for long MCP names). */
  readonly name: string;
  /** JSON-encoded arguments, as the model sent them. */
  readonly arguments: string;
}

/** What running one tool produced, as text for the model. */
export interface ToolOutcome {
  readonly text: string;
  readonly isError: boolean;
}

export interface RunContext {
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly timeoutMs: number;
}

/** SPEC 9.3: what to do with one tool call. */
export type Decision =
  | {
      readonly kind: "auto";
      /** Key in the mixed response's result object: `<client>_<tool>`. */
      readonly label: string;
      readonly run: (
        args: Record<string, unknown>,
        ctx: RunContext,
      ) => Promise<ToolOutcome>;
    }
  | { readonly kind: "manual" }
  | { readonly kind: "skipped"; readonly reason: string };

/** How one wire API carries tool calls, tool results and usage. */
export interface Dialect {
  /** Path under the provider's base URL. */
  readonly apiPath: string;
  /** The request as the loop sends it: not streaming, denials rewritten (SPEC 7). */
  prepare(body: Json): Json;
  toolCalls(response: Json): ToolCall[];
  /** The request extended by the model's turn and one result per call. */
  appendTurn(
    request: Json,
    response: Json,
    results: readonly { readonly call: ToolCall; readonly text: string }[],
  ): Json;
  /** The response with only `calls` left as its tool calls (skipped ones dropped). */
  keepCalls(response: Json, calls: readonly ToolCall[]): Json;
  /** SPEC 4.5: executed results as text, pending calls as tool calls. */
  mixed(response: Json, content: string, pending: readonly ToolCall[]): Json;
  usage(response: Json): Json | undefined;
  withUsage(response: Json, usage: Json): Json;
}

export interface AgentOptions {
  readonly maxDepth: number;
  readonly timeoutMs: number;
  readonly parentRequestId: string;
  /** SPEC 6.3: the request id of each iteration (1-based). Default `<parent-id>-<iteration>`. */
  readonly iterationRequestId?:
    ((parentId: string, iteration: number) => string) | undefined;
  readonly signal: AbortSignal;
  callModel(
    request: Json,
    ctx: { readonly requestId: string; readonly iteration: number },
  ): Promise<Json>;
  classify(call: ToolCall): Decision;
}

export interface AgentResult {
  readonly response: Json;
  /** Model calls made. */
  readonly iterations: number;
  /** Why the loop ended. */
  readonly stop: "final" | "manual" | "depth";
}
