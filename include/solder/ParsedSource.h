//===- ParsedSource.h - An .mlir file parsed for a Solder tool -*- C++ -*-===//
//
// What solder-compile and solder-interp both do first: open an .mlir file and
// parse it with diagnostics located in the file.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_PARSEDSOURCE_H
#define SOLDER_PARSEDSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::solder {

/// Opens and parses `path`. The SourceMgr and its diagnostic handler live as
/// long as this object, so diagnostics emitted later (verifier, passes) are
/// located in the file too.
class ParsedSource {
public:
  ParsedSource(llvm::StringRef path, MLIRContext &context)
      : diagnostics(sourceMgr, &context) {
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &openError);
    if (!file)
      return;
    text = file->getBuffer().str();
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }

  /// Why the file could not be opened; empty when it was (parse errors have
  /// been reported through the diagnostics, and `module` is null).
  std::string openError;
  /// The file's contents.
  std::string text;
  OwningOpRef<ModuleOp> module;

private:
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics;
};

} // namespace mlir::solder

#endif // SOLDER_PARSEDSOURCE_H
