//===- SplitAggregatePhis.cpp - A phi of a struct becomes a phi per field -===//
//
// A variable of the dialect that holds a struct (`%a = %V3 zeroinitializer`,
// reassigned in a loop) becomes a phi of the struct type when SSA is
// restored. LLVM's scalar passes leave such phis as they are: SROA splits
// allocas, not phis, and the loop vectorizer does not take a reduction whose
// phi is an aggregate. So an accumulation over a loop, written with a struct
// variable, would run one element at a time.
//
// This pass runs on each kernel module before the optimization pipeline and
// turns every phi of a struct type into one phi per field:
//
//   %a = phi { float, float } [ zeroinitializer, %pre ], [ %n, %loop ]
// becomes
//   %a.0 = phi float [ 0.0, %pre ], [ %n.0, %loop ]     ; %n.0 = extractvalue
//   %a.1 = phi float [ 0.0, %pre ], [ %n.1, %loop ]     ;   %n, 0 in %loop
//   %a = insertvalue (insertvalue poison, %a.0, 0), %a.1, 1
//
// Constants give their fields; other values are taken apart at the end of
// the incoming block. InstCombine then folds each extractvalue of an
// insertvalue, and what remains are scalar phis. Nested structs are split
// again, field by field. The module's meaning is unchanged.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

void llq::detail::splitAggregatePhis(Module &M) {
  for (Function &F : M) {
    SmallVector<PHINode *, 8> Work;
    for (BasicBlock &BB : F)
      for (PHINode &P : BB.phis())
        if (P.getType()->isStructTy())
          Work.push_back(&P);
    while (!Work.empty()) {
      PHINode *P = Work.pop_back_val();
      auto *ST = cast<StructType>(P->getType());
      BasicBlock *BB = P->getParent();
      // A value of a block can be taken apart once, whatever the number of
      // edges from that block (a switch may have several).
      DenseMap<std::pair<Value *, BasicBlock *>, SmallVector<Value *, 4>> Parts;
      auto FieldsOf = [&](Value *In, BasicBlock *From) -> ArrayRef<Value *> {
        auto [It, New] = Parts.try_emplace({In, From});
        if (New) {
          for (unsigned K = 0; K < ST->getNumElements(); ++K) {
            if (auto *C = dyn_cast<Constant>(In)) {
              It->second.push_back(C->getAggregateElement(K));
            } else {
              IRBuilder<> B(From->getTerminator());
              It->second.push_back(B.CreateExtractValue(
                  In, K, In->hasName() ? In->getName() + "." + Twine(K) : ""));
            }
          }
        }
        return It->second;
      };
      SmallVector<PHINode *, 4> Fields;
      for (unsigned K = 0; K < ST->getNumElements(); ++K)
        Fields.push_back(PHINode::Create(ST->getElementType(K),
                                         P->getNumIncomingValues(),
                                         P->getName() + "." + Twine(K),
                                         P->getIterator()));
      for (unsigned I = 0; I < P->getNumIncomingValues(); ++I) {
        ArrayRef<Value *> Xs =
            FieldsOf(P->getIncomingValue(I), P->getIncomingBlock(I));
        for (unsigned K = 0; K < Fields.size(); ++K)
          Fields[K]->addIncoming(Xs[K], P->getIncomingBlock(I));
      }
      IRBuilder<> B(BB, BB->getFirstInsertionPt());
      Value *Agg = PoisonValue::get(ST);
      for (unsigned K = 0; K < Fields.size(); ++K) {
        Agg = B.CreateInsertValue(Agg, Fields[K], K);
        if (Fields[K]->getType()->isStructTy())
          Work.push_back(Fields[K]);
      }
      Agg->takeName(P);
      P->replaceAllUsesWith(Agg);
      P->eraseFromParent();
    }
  }
}
