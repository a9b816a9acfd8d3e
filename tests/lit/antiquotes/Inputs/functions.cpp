// Scalar functions of the skeleton library: a body written as one raw
// string literal, the LLQ_FN's last argument, is checked at build time.
#define LLQ_FN(...) 0

auto Good = LLQ_FN("i32 (i32 %x)", R"(
  %r = i32 %x
  if true {
    %r = add i32 %r, 1
  })");

auto Bad = LLQ_FN(vectors(), "%V3 (%V3 %a)", R"(
  %s = fadd float %a
  %r = %V3 %a)");

auto Plain = LLQ_FN("i32 (i32 %x)", "%r = add i32 %x");
