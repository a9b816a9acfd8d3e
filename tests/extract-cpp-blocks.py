"""extract-cpp-blocks.py DOC.md OUT.cpp: the ```cpp blocks of DOC, in order,
as one C++ source, with #line directives that point back into DOC."""
import re
import sys

doc, out = sys.argv[1], sys.argv[2]
text = open(doc).read()
parts = ["// Generated from %s; edit that file.\n" % doc]
for m in re.finditer(r"```cpp\n(.*?)```", text, re.S):
    line = text.count("\n", 0, m.start(1)) + 1
    parts.append('#line %d "%s"\n%s' % (line, doc, m.group(1)))
open(out, "w").write("".join(parts))
