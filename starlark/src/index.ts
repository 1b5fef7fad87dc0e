// Public surface of the Starlark interpreter; filled in by the interpreter's modules.
export {};
