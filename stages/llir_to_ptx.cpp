// The LLVM IR <-> PTX checker.
