// Public surface of the operator; filled in by its modules.
export {};
