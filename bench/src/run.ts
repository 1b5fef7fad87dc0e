// Runs the benchmarks named on the command line (all when none); see ARCHITECTURE.md "Benchmarks".
export {};
