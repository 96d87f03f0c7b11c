#!/usr/bin/env bash
# Lints the RTL with Verilator's -Wall: every file of files.f, each module in turn as the top
# so that nothing goes unchecked; the waivers are narrow and say why.
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t files < <(grep -v '^//' files.f | grep .)
for f in "${files[@]}"; do
    top=$(sed -n 's/^module \([a-z0-9_]*\).*/\1/p' "$f" | head -1)
    [ -n "$top" ] || continue
    verilator --lint-only -Wall lint/verilator_waiver.vlt "${files[@]}" --top-module "$top"
done
# What yosys reads otherwise than Verilator, which the gate-level co-simulation found: yosys
# 0.23 takes a typed parameter's '1 for 1 (not all ones).
if grep -nE "^\s*(local)?param(eter)?\s+(logic|bit)\b.*=\s*'1\s*[;,]" "${files[@]}"; then
    echo "lint.sh: a typed parameter of '1, which yosys reads as 1: write the value out" >&2
    exit 1
fi
# And a cast right after a unary operator (-10'(x), ~N'(x)), which it reads as another value
# (sgpu_mufu.sv's scales came out with the wrong sign in the gate-level netlist).
if grep -nE "(^|[=(?:,{]|&&|\|\|)\s*[-~!]\s*[0-9A-Za-z_]+'\(" "${files[@]}"; then
    echo "lint.sh: a cast right after a unary operator, which yosys 0.23 misreads:" \
        "write -(N'(x)) or a named constant" >&2
    exit 1
fi
