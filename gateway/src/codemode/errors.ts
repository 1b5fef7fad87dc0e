/**
 * A meta-tool failure caused by its input (unknown file, bad line range, unknown tool, script
 * error). It is answered to the model as a tool result with `isError: true`, never as an HTTP
 * or JSON-RPC error: the model reads the message and corrects itself.
 */
export class MetaToolError extends Error {
  override readonly name = "MetaToolError";
}
