//===- SolderAttrs.td - Enum attributes of the solder dialect ---*- tablegen -*-===//

#ifndef SOLDER_ATTRS
#define SOLDER_ATTRS

include "solder/Dialect/Solder/IR/SolderDialect.td"
include "mlir/IR/EnumAttr.td"

class Solder_EnumAttr<EnumAttrInfo enumInfo, string name>
    : EnumAttr<Solder_Dialect, enumInfo, name> {
  // `#solder.reduce_kind<sum>` on its own; ops print a bare keyword through
  // custom<EnumKeyword>: `solder.reduce sum %x ...`.
  let assemblyFormat = "`<` $value `>`";
}

def Solder_ReduceKind : I32EnumAttr<"ReduceKind", "kind of a reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"logsumexp", 4>,
    I32EnumAttrCase<"prod", 5>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_ReduceKindAttr : Solder_EnumAttr<Solder_ReduceKind, "reduce_kind">;

def Solder_PoolKind : I32EnumAttr<"PoolKind", "kind of a pooling window", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_PoolKindAttr : Solder_EnumAttr<Solder_PoolKind, "pool_kind">;

def Solder_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation of GELU, as torch.nn.GELU's `approximate`", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_GeluApproximationAttr
    : Solder_EnumAttr<Solder_GeluApproximation, "gelu_approximation">;

#endif // SOLDER_ATTRS
