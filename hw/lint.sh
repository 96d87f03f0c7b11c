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
