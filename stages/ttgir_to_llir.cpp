// The TTGIR <-> LLVM IR checker.
