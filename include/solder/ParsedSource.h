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
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::solder {

/// Opens and parses `path`. The SourceMgr and its diagnostic handler live as
/// long as this object, so diagnostics emitted later (verifier, passes) are
/// located in the file too.
class ParsedSource {
public:
  ParsedSource(llvm::StringRef path, MLIRContext &context)
      : diagnostics(sourceMgr, &context), context(context) {
    nodeNotes = context.getDiagEngine().registerHandler(nameNodes);
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &openError);
    if (!file)
      return;
    text = file->getBuffer().str();
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }

  ~ParsedSource() { context.getDiagEngine().eraseHandler(nodeNotes); }
  ParsedSource(const ParsedSource &) = delete;
  ParsedSource &operator=(const ParsedSource &) = delete;

  /// Why the file could not be opened; empty when it was (parse errors have
  /// been reported through the diagnostics, and `module` is null).
  std::string openError;
  /// The file's contents.
  std::string text;
  OwningOpRef<ModuleOp> module;

private:
  /// The importer locates each op at loc("node"("model.py":12:1)), the ATen
  /// node that made it. An error gets a note naming the nodes its location
  /// holds (a fusion's: all of its ops'), so that the torch.compile backend
  /// can leave just those to eager; then the file handler prints it.
  static LogicalResult nameNodes(Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    llvm::SetVector<StringRef> nodes;
    diagnostic.getLocation()->walk([&](Location location) {
      if (auto name = dyn_cast<NameLoc>(location))
        nodes.insert(name.getName().getValue());
      return WalkResult::advance();
    });
    if (nodes.empty())
      return failure();
    Diagnostic &note = diagnostic.attachNote();
    note << (nodes.size() == 1 ? "in ATen node " : "in ATen nodes ");
    llvm::interleaveComma(nodes, note, [&](StringRef node) { note << "'" << node << "'"; });
    return failure();
  }

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics;
  MLIRContext &context;
  DiagnosticEngine::HandlerID nodeNotes;
};

} // namespace mlir::solder

#endif // SOLDER_PARSEDSOURCE_H
