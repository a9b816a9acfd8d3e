// Hygienic fragments for hygiene-check.test: the first reads a name it is
// not given, the second a block; the third is right.
#include "llquote/Template.h"

static const llq::Template Leaky = LLQ_HYGIENIC_INSTRS(R"(
  %y = add i64 $opr:x, 1
  %z = mul i64 %y, %n
)");

static const llq::Template Jumps = LLQ_HYGIENIC_BLOCKS(R"(
top:
  br label %exit
)");

static const llq::Template Given = LLQ_HYGIENIC_INSTRS(R"(
  for i64 %k in 0 to $opr:n {
    $id:acc = add i64 $id:acc, %k
  }
)");
