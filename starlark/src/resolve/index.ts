// Starlark name resolution: annotates a parsed File with bindings (see syntax/ast.ts for the
// contract) and reports every resolver error.
export {
  resolve,
  ResolveError,
  resolveExpr,
  type ResolveOptions,
} from "./resolver.js";
export { nearest } from "./spell.js";
