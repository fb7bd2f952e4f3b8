//===- ttgir_to_llir.h - Does the LLVM IR mean what the TTGIR means? -*- C++ -*-===//
#ifndef STAGECHECK_STAGES_TTGIR_TO_LLIR_H
#define STAGECHECK_STAGES_TTGIR_TO_LLIR_H
#endif
