/**
 * Code mode (SPEC 10): code-mode clients hide behind four meta-tools, and the model reaches
 * them by reading virtual `.pyi` stubs and running Starlark scripts.
 */
export { classifyCode } from "./auto-exec.js";
export {
  callerCatalog,
  type Catalog,
  catalogOf,
  type CatalogServer,
  type CatalogTool,
} from "./catalog.js";
export { toolDocs } from "./docs.js";
export {
  executeCode,
  type ExecuteInput,
  type ExecuteOutcome,
  toolValue,
} from "./execute.js";
export { isIdentifier, toIdentifier } from "./identifiers.js";
export {
  DEFINITIONS,
  EXECUTE_TOOL_CODE,
  GET_TOOL_DOCS,
  LIST_TOOL_FILES,
  META_TOOL_NAMES,
  READ_TOOL_FILE,
} from "./meta-tools.js";
export { pyType } from "./python-types.js";
export {
  type CodeMode,
  type CodeModeOptions,
  createCodeMode,
  type MetaCallContext,
} from "./service.js";
export {
  type BindingLevel,
  fileLines,
  fileTree,
  readLines,
  signatureLine,
} from "./stubs.js";
