//===- llir_to_ptx.h - Does the PTX mean what the LLVM IR means? -*- C++ -*-===//
#ifndef STAGECHECK_STAGES_LLIR_TO_PTX_H
#define STAGECHECK_STAGES_LLIR_TO_PTX_H
#endif
