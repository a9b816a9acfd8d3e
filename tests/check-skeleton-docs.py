#!/usr/bin/env python3
"""Checks that every dialect block of docs/Skeletons.md and
docs/SkeletonAuthoring.md marked <!-- skeleton: FILE --> appears, as
written, in FILE: the pages show the skeletons the code runs."""
import re
import sys

root = sys.argv[1]
blocks = []
for page in ("docs/Skeletons.md", "docs/SkeletonAuthoring.md"):
    doc = open(f"{root}/{page}").read()
    found = re.findall(r"<!-- skeleton: (\S+) -->\n```llvm\n(.*?)```", doc, re.S)
    if not found:
        sys.exit(f"{page}: no skeleton blocks found")
    blocks += [(page, path, text) for path, text in found]
failed = 0
for page, path, text in blocks:
    if text not in open(f"{root}/{path}").read():
        print(f"{page}: the block for {path} differs from the source")
        failed += 1
print(f"{len(blocks)} skeleton blocks checked, {failed} differ")
sys.exit(1 if failed else 0)
