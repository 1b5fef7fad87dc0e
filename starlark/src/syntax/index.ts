// Starlark syntax: the tree (ast.ts), the scanner and the parser. `parse` turns source into a
// File; errors are StarlarkSyntaxError with `pos` and the bare `msg`.
export type * from "./ast.js";
export { StarlarkSyntaxError } from "./errors.js";
export { ALL_OPTIONS, DEFAULT_OPTIONS, parse, parseExpr } from "./parser.js";
export {
  children,
  findObjectUses,
  type MethodCall,
  type ObjectUses,
  walk,
} from "./walk.js";
