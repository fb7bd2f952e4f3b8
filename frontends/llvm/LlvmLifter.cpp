// Placeholder until the LLVM IR lifter lands.
