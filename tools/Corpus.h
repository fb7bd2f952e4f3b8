//===- Corpus.h - stagecheck corpus: many bundles, nightly ------*- C++ -*-===//
#ifndef STAGECHECK_TOOLS_CORPUS_H
#define STAGECHECK_TOOLS_CORPUS_H

namespace stagecheck::tools {

/// `stagecheck corpus DIR...`; returns the exit code.
int runCorpus(int Argc, char **Argv);

} // namespace stagecheck::tools

#endif
