"""gen_nested.py LINES [OUT]: one dialect function of about LINES lines.

The function is what a code generator emits when it unrolls or inlines a
kernel: one body, LINES long, of nested `for`, `while` and `if` (depth 2 to
4), `break` and `continue`, over a few variables reassigned throughout. Every
construct asks lowering for block names (`for.cond`, `while.body`, ...) and
placeholder reads (`x.read`), so the same few names are made
thousands of times: a name generator that searches from `.1` each time is
quadratic here. The module runs (`@main` returns the sum's low byte), but the
benchmarks and the scaling test only lower and verify it.

Used by bench-ssa (10k to 80k lines) and by the scale.nested40k CTest, which
is why it is a script, not a compiled tool: it works with benchmarks off."""
import sys

# Units of nested control structures; {k} varies constants so that no two
# units are textually the same. Each is self-contained and leaves %x, %y, %z
# and %go defined.
UNITS = [
    """\
  for i32 %i in 0 to {n} {{
    %x = add i32 %x, %i
    %t = i32 %i
    %go = i1 true
    while %go {{
      %t = add i32 %t, 1
      %go = icmp slt i32 %t, {m}
      %r = urem i32 %t, 3
      %three = icmp eq i32 %r, 0
      if %three {{
        %y = add i32 %y, %t
        continue
      }} else {{
        %y = xor i32 %y, %x
      }}
    }}
    %big = icmp sgt i32 %y, 100000
    if %big {{
      %y = and i32 %y, 1023
      break
    }}
  }}
""",
    """\
  %go = icmp ult i32 %x, {m}
  if %go {{
    for i32 %j in {n} downto 0 {{
      %z = add i32 %z, %j
      %odd = and i32 %j, 1
      %isodd = icmp ne i32 %odd, 0
      if %isodd {{
        %x = sub i32 %x, 1
      }} else if %go {{
        %x = add i32 %x, 2
      }} else {{
        %z = mul i32 %z, 3
      }}
    }}
  }} else {{
    %x = and i32 %x, 255
  }}
""",
    """\
  for i32 %i in 0 to {n} step 2 {{
    for i32 %j in 0 to %i {{
      %s = add i32 %i, %j
      %w = icmp eq i32 %s, {m}
      if %w {{
        %z = add i32 %z, %s
        break
      }}
      %y = add i32 %y, 1
    }}
  }}
""",
]


def units():
    k = 0
    while True:
        text = UNITS[k % len(UNITS)].format(n=3 + k % 5, m=7 + k % 11)
        yield text
        k += 1


def generate(lines):
    out = ["define i32 @big(i32 %seed) {",
           "  %x = i32 %seed", "  %y = i32 0", "  %z = i32 1"]
    count = len(out)
    for unit in units():
        if count >= lines - 4:
            break
        out.append(unit.rstrip("\n"))
        count += unit.count("\n")
    out += ["  %s = add i32 %x, %y", "  %s = add i32 %s, %z",
            "  %r = and i32 %s, 255", "  ret i32 %r", "}",
            "define i32 @main() {", "  %r = call i32 @big(i32 5)",
            "  ret i32 %r", "}"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    text = generate(int(sys.argv[1]))
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
