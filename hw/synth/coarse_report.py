#!/usr/bin/env python3
"""Two tables from a module's coarse yosys netlist (coarse.sh writes it with write_json).

Usage: coarse_report.py NETLIST.json MODULE [ROWS]

1. The multiplexer bits in front of each register: for every flip-flop, the $mux and $pmux
   cells on the way back from its D input, counted once per register (named as in the
   source, indices dropped). A register with many times its own width in multiplexer bits is
   written by many states or at computed indexes (hw/README.md).
2. The cells of each source line, weighted by a rough count of the LUTs they become: a
   cell's output bits, a comparison's or reduction's input bits over three (a LUT4 takes
   four inputs), a $pmux's bits times half its cases, a shift's output bits times its
   amount's bits. Cells yosys made without a source line are under "-".
"""

import collections
import json
import re
import sys

MUXES = ("$mux", "$pmux")
NARROWING = ("$eq", "$ne", "$eqx", "$reduce_and", "$reduce_or", "$reduce_bool", "$logic_not")
SHIFTS = ("$shift", "$shiftx", "$shl", "$shr", "$sshr")


def drivers(cells):
    """The cell driving each bit."""
    out = {}
    for name, cell in cells.items():
        for port, bits in cell["connections"].items():
            if cell.get("port_directions", {}).get(port) == "output":
                for bit in bits:
                    if isinstance(bit, int):
                        out[bit] = name
    return out


def source_names(netnames):
    """The first source-level name of each bit (yosys's own names start with '$')."""
    out = {}
    for name, net in netnames.items():
        if name.startswith("$"):
            continue
        for bit in net["bits"]:
            if isinstance(bit, int):
                out.setdefault(bit, re.sub(r"\[.*", "", name))
    return out


def mux_bits(cells, driver, names):
    """Multiplexer bits in front of each register, and the register's own bits."""
    muxes = collections.Counter()
    width = collections.Counter()
    for name, cell in cells.items():
        if "dff" not in cell["type"]:
            continue
        q = cell["connections"]["Q"]
        reg = names.get(q[0], name)
        width[reg] += len(q)
        seen = set()
        stack = [b for b in cell["connections"]["D"] if isinstance(b, int)]
        while stack:
            other = driver.get(stack.pop())
            if other is None or other in seen or cells[other]["type"] not in MUXES:
                continue
            seen.add(other)
            conn = cells[other]["connections"]
            muxes[reg] += len(conn["Y"])
            stack += [b for p in ("A", "B") for b in conn[p] if isinstance(b, int)]
    return muxes, width


def weight(cell):
    """A rough count of the LUTs a coarse cell becomes."""
    kind, conn = cell["type"], cell["connections"]
    if kind in NARROWING:
        return max(1, len(conn.get("A", [])) // 3)
    if kind == "$pmux":
        return len(conn["Y"]) * max(1, len(conn["S"]) // 2)
    if kind in SHIFTS:
        return len(conn["Y"]) * len(conn["B"])
    return len(conn.get("Y", []))


def by_line(cells, source):
    """Weighted cells of each source line of the module's own file, and their kinds."""
    total = collections.Counter()
    kinds = collections.defaultdict(collections.Counter)
    for cell in cells.values():
        kind = cell["type"]
        if "dff" in kind or not kind.startswith("$"):
            continue  # flip-flops, and submodules (their own reports)
        lines = re.findall(re.escape(source) + r":([1-9]\d*)", cell.get("attributes", {}).get("src", ""))
        line = lines[-1] if lines else "-"
        w = weight(cell)
        total[line] += w
        kinds[line][kind] += w
    return total, kinds


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    netlist, top = sys.argv[1], sys.argv[2]
    rows = int(sys.argv[3]) if len(sys.argv) == 4 else 25
    module = json.load(open(netlist))["modules"][top]
    cells = module["cells"]
    muxes, width = mux_bits(cells, drivers(cells), source_names(module["netnames"]))
    print(f"Multiplexer bits in front of {top}'s registers:")
    print(f"{'mux bits':>9} {'reg bits':>9}  register")
    for reg, n in muxes.most_common(rows):
        print(f"{n:9d} {width[reg]:9d}  {reg}")
    print(f"{sum(muxes.values()):9d} {sum(width.values()):9d}  (all)")

    source = f"{top}.sv"
    try:
        text = open(source).read().split("\n")
    except OSError:
        text = []
    total, kinds = by_line(cells, source)
    print(f"\nCells of each line of {source}, weighted by a rough LUT count:")
    print(f"{'weight':>7} {'line':>5}  cells | source")
    for line, w in total.most_common(rows):
        shown = text[int(line) - 1].strip()[:60] if line != "-" and int(line) <= len(text) else ""
        top_kinds = ", ".join(f"{k[1:]} {v}" for k, v in kinds[line].most_common(2))
        print(f"{w:7d} {line:>5}  {top_kinds} | {shown}")
    print(f"{sum(total.values()):7d}   all")


if __name__ == "__main__":
    main()
