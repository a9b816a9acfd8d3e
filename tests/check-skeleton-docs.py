#!/usr/bin/env python3
"""Checks that every dialect block of docs/Skeletons.md marked
<!-- skeleton: FILE --> appears, as written, in FILE: the page shows the
skeletons the library runs."""
import re
import sys

root = sys.argv[1]
doc = open(f"{root}/docs/Skeletons.md").read()
blocks = re.findall(r"<!-- skeleton: (\S+) -->\n```llvm\n(.*?)```", doc, re.S)
if not blocks:
    sys.exit("docs/Skeletons.md: no skeleton blocks found")
failed = 0
for path, text in blocks:
    if text not in open(f"{root}/{path}").read():
        print(f"docs/Skeletons.md: the block for {path} differs from the source")
        failed += 1
print(f"{len(blocks)} skeleton blocks checked, {failed} differ")
sys.exit(1 if failed else 0)
