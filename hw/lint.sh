#!/usr/bin/env bash
# Lints the RTL with Verilator's -Wall; the waivers are narrow and say why.
set -euo pipefail
cd "$(dirname "$0")"
verilator --lint-only -Wall lint/verilator_waiver.vlt sgpu_isa_pkg.sv sgpu_predecode.sv \
    --top-module sgpu_predecode
