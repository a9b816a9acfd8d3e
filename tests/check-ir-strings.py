#!/usr/bin/env python3
"""Fails on LLVM IR assembled from strings in C++ sources.

The skeleton library builds its kernels from quoted templates and fragments
(LLQ_SKELETON, LLQ_INSTRS, LLQ_HYGIENIC_INSTRS, ...) with typed bindings. This
check keeps it so: it reads every C++ file under the directories given and
reports, at file:line, each ordinary string literal that holds IR (a local
name defined with '=', or an instruction opcode followed by a type or
operand), and each raw string literal that holds IR outside a template macro.
Also reported: Binding::source, which splices text unchecked.

Allowed: the text of template macros (LLQ_SKELETON(R"(...)") and the others),
and the literal arguments of LLQ_FN, which are scalar functions quoted in the
dialect, as long as they are not concatenated (a '+' next to them).

Usage: check-ir-strings.py DIR_OR_FILE...; exits 1 when it finds any.
"""

import os
import re
import sys

OPCODES = (
    "add|fadd|sub|fsub|mul|fmul|sdiv|udiv|srem|urem|fdiv|frem|shl|lshr|ashr|"
    "and|or|xor|icmp|fcmp|getelementptr|load|store|call|select|phi|zext|sext|"
    "trunc|fptrunc|fpext|sitofp|uitofp|fptosi|fptoui|bitcast|ptrtoint|"
    "inttoptr|extractvalue|insertvalue|extractelement|insertelement|"
    "shufflevector|atomicrmw|cmpxchg|alloca|freeze"
)
# A type as IR writes it, or a {} that a formatter fills with one.
TYPE = (r"(?:i\d+\b|float|double|half|bfloat|ptr|void|label|\{\d*\}|"
        r"<\d+ x [^>]+>|\{ [^}]*\})")
# An operand: a name, a constant, or a {} to be filled.
VALUE = (r"(?:%[-\w.$\"{}]+|@[-\w.$]+|\{\d*\}|\$\w+:\w+|-?\d+(?:\.\d+)?|"
         r"true|false|null|poison|undef|zeroinitializer)")
FLAGS = (r"(?:(?:nsw|nuw|exact|inbounds|fast|nnan|volatile|atomic|eq|ne|"
         r"[su][lg][te]|o[lg][te]|u[lg][te]|oeq|une|ord|uno|xchg|max|min|"
         r"umax|umin|fmax|fmin)\s+)*")
IR_SHAPES = [
    # %x = add ..., %x = i64 ..., {} = load ...
    re.compile(r"%[-\w.$]*(?:\{\d*\})?[-\w.$]*\s*=\s*(?:(?:" + OPCODES +
               r")\b|" + TYPE + r"\s)"),
    re.compile(r"\{\d*\}\s*=\s*(?:" + OPCODES + r")\b"),
    # add i64 %a, ...; load i32, ptr ...; store {} {}, ...
    re.compile(r"(?:^|[\s(])(?:" + OPCODES + r")\s+" + FLAGS + TYPE +
               r"(?:\s+" + VALUE + r"|\s*,\s*(?:ptr|" + TYPE + r"))"),
    re.compile(r"(?:^|\s)(?:br\s+(?:label|i1)|ret\s+(?:void|" + TYPE +
               r"\s+" + VALUE + r"))"),
    re.compile(r"\bdefine\b[^\n]*@"),
]
# Pieces of IR that only make sense joined to others: a definition's left
# side, an opcode alone, a local name outside quotes.
IR_PIECES = re.compile(r"%[-\w.$]+\s*=\s*$|^\s*(?:" + OPCODES +
                       r")\s*$|^\s*%[-\w.]+\s*(?:$|\n|,)|,\s*%[-\w.]+\s*$",
                       re.MULTILINE)
# Files that may build dialect text, and why. Each is reviewed by hand.
ALLOWED = {
    # LLQ_FN's signature and body are the user's own dialect text, written
    # in C++ strings; Fn.cpp puts the definition's header and its `ret`
    # around them, line for line, so that errors stay at the user's lines.
    # Nothing in it is generated code.
    "skeletons/lib/Fn.cpp",
}
TEMPLATE_MACROS = re.compile(r"\bLLQ_[A-Z_]+\s*\(\s*$")


def strip_comments_and_split(text):
    """Yields (kind, value, offset) tokens: 'str' and 'raw' literals with
    their contents, 'code' for everything else. Comments are dropped."""
    i, n = 0, len(text)
    code_start = 0
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            yield ("code", text[code_start:i], code_start)
            j = text.find("\n", i)
            i = n if j < 0 else j
            code_start = i
            continue
        if text.startswith("/*", i):
            yield ("code", text[code_start:i], code_start)
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            code_start = i
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            yield ("code", text[code_start:i], code_start)
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j
            yield ("raw", text[i + m.end():j], i)
            i = j + len(end)
            code_start = i
            continue
        if c == '"':
            yield ("code", text[code_start:i], code_start)
            j = i + 1
            buf = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            yield ("str", "".join(buf).replace("\\n", "\n"), i)
            i = j + 1
            code_start = i
            continue
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        i += 1
    yield ("code", text[code_start:], code_start)


def ir_shaped(s, concatenated=False):
    if any(p.search(s) for p in IR_SHAPES):
        return True
    return concatenated and IR_PIECES.search(s) is not None


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def check_file(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    findings = []
    tokens = list(strip_comments_and_split(text))
    # The calls the next literal is an argument of.
    depth_stack = []  # (macro name, paren depth at its '(')
    depth = 0
    for k, (kind, value, offset) in enumerate(tokens):
        if kind == "code":
            for m in re.finditer(r"\b(LLQ_[A-Z_]+|Fn)\s*\(|[()]", value):
                tok = m.group(0)
                if tok == "(":
                    depth += 1
                elif tok == ")":
                    if depth_stack and depth_stack[-1][1] == depth:
                        depth_stack.pop()
                    depth -= 1
                else:
                    depth += 1
                    depth_stack.append((m.group(1), depth))
            continue
        prev_code = tokens[k - 1][1] if k > 0 else ""
        next_code = tokens[k + 1][1] if k + 1 < len(tokens) else ""
        concatenated = prev_code.rstrip().endswith(("+", "+=", "<<")) or \
            next_code.lstrip().startswith("+")
        inside = depth_stack[-1][0] if depth_stack else None
        quoted = inside is not None and inside.startswith("LLQ_") or \
            inside == "Fn"
        if kind == "raw":
            if (TEMPLATE_MACROS.search(prev_code) or quoted) and \
                    not concatenated:
                continue
            if ir_shaped(value, concatenated):
                findings.append((line_of(text, offset),
                                 "IR in a raw string outside a template macro"))
            continue
        if not ir_shaped(value, concatenated):
            continue
        if quoted and not concatenated and "fmt::format" not in prev_code:
            continue
        what = "IR assembled from strings"
        if "fmt::format" in prev_code:
            what = "IR formatted with fmt::format"
        findings.append((line_of(text, offset), what))
    for m in re.finditer(r"\bBinding::source\s*\(", text):
        findings.append((line_of(text, m.start()),
                         "Binding::source splices text unchecked"))
    return findings


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    files = []
    for arg in argv[1:]:
        if os.path.isdir(arg):
            for root, _, names in os.walk(arg):
                for name in sorted(names):
                    if name.endswith((".cpp", ".h", ".hpp", ".cc")):
                        files.append(os.path.join(root, name))
        else:
            files.append(arg)
    bad = 0
    for path in sorted(files):
        if any(path.replace(os.sep, "/").endswith(a) for a in ALLOWED):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for line, what in sorted(set(check_file(path))):
            bad += 1
            print(f"{path}:{line}: error: {what}; write it as a quoted "
                  f"template or fragment (docs/SkeletonAuthoring.md)")
            print("  " + lines[line - 1].strip())
    print(f"check-ir-strings: {len(files)} files, {bad} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
