#!/usr/bin/env python3
"""Compares sgpu code from ptxas-rs with NVIDIA's SASS for the same PTX (issue 11's table).

For each input, NVIDIA's ptxas (`-O3 --gpu-name sm_80`, at `--maxrregcount` equal to ours) and
ptxas-rs each assemble it; the script prints, per file, the static instruction counts (SASS
counted with cuobjdump, NOPs excluded; sgpu with `ptxas-rs -v`), registers and spill bytes
of each, their ratio, and the warp instructions the golden model retires at -O0 and -O3
where the input has a launch manifest.

A test tool only: nothing in the test command runs it. NVIDIA's tools come from PyPI, in a
virtual environment:

    python3 -m venv /tmp/nv && /tmp/nv/bin/pip install nvidia-cuda-nvcc-cu12==12.9.86 \\
        nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
    bench/sass_compare.py --nvidia /tmp/nv

It finds `ptxas`, `cuobjdump` and `nvdisasm` anywhere below the `--nvidia` folder (cuobjdump
needs nvdisasm on PATH), ptxas-rs in cargo's release folder (built first), the corpus in
../shared (or $PTXAS_SHARED) and clang-16 on PATH for the CUDA examples.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PTXAS_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus" / "generated" / "clang16_cuda"
# The kernels the issue measures: LLVM's -O2 output of CUDA C.
CORPUS_FILES = [
    "matmul_tiled.sm80.O2.ptx",
    "reduction.sm80.O2.ptx",
    "warp.sm80.O2.ptx",
    "histogram.sm80.O2.ptx",
    "devfunc.sm80.O2.ptx",
    "divergent.sm80.O2.ptx",
    "big_unrolled.sm80.O2.ptx",
]
LAUNCHES = ROOT / "bench" / "launch"
TOOL = None


def find_tool(root: Path, name: str) -> Path:
    hits = sorted(p for p in root.rglob(name) if p.is_file() and os.access(p, os.X_OK))
    if not hits:
        sys.exit(f"error: no `{name}` below {root}")
    return hits[0]


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class Nvidia:
    def __init__(self, root: Path):
        self.ptxas = find_tool(root, "ptxas")
        self.cuobjdump = find_tool(root, "cuobjdump")
        nvdisasm = find_tool(root, "nvdisasm")
        self.env = dict(os.environ, PATH=f"{nvdisasm.parent}:{os.environ['PATH']}")

    def assemble(self, ptx: Path, registers: int, tmp: Path):
        """(instructions, registers, spill bytes) of NVIDIA's SASS, or None if ptxas refuses."""
        cubin = tmp / (ptx.stem + ".cubin")
        p = run([str(self.ptxas), "-O3", "--gpu-name", "sm_80", "-v",
                 "--maxrregcount", str(registers), str(ptx), "-o", str(cubin)])
        if p.returncode != 0:
            return None
        regs = max((int(m) for m in re.findall(r"Used (\d+) registers", p.stderr)), default=0)
        spills = sum(int(a) + int(b) for a, b in
                     re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", p.stderr))
        sass = run([str(self.cuobjdump), "-sass", str(cubin)], env=self.env).stdout
        count = 0
        for line in sass.splitlines():
            m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?);", line)
            if m and not re.match(r"(@!?U?P\w+\s+)?NOP\b", m.group(1)):
                count += 1
        return count, regs, spills


def ptxas_rs() -> Path:
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "ptxas-rs"], cwd=ROOT,
                   check=True)
    # Wherever cargo builds (CARGO_TARGET_DIR or a config may move it from target/).
    meta = run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT,
               check=True)
    return Path(json.loads(meta.stdout)["target_directory"]) / "release" / "ptxas-rs"


def sgpu_assemble(tool: Path, ptx: Path, level: int, tmp: Path):
    """(instructions, registers, spill bytes, elf path, instructions of the runtimes linked in)
    of ptxas-rs at -O`level`."""
    elf = tmp / f"{ptx.stem}.O{level}.elf"
    p = run([str(tool), "-v", f"-O{level}", str(ptx), "-o", str(elf)])
    if p.returncode != 0:
        sys.exit(f"error: ptxas-rs failed on {ptx}:\n{p.stderr}")
    out = p.stdout + p.stderr
    count = sum(int(n) for n in re.findall(r"(\d+) instructions", out))
    # Each function's report: its name, then (a few lines on) its instruction count. The
    # runtimes: the f64 routines (`__sgpu_*`) and the printf runtime's `vprintf`.
    runtime = sum(int(n) for n in re.findall(
        r"function '(?:__sgpu_\w+|vprintf)'[^\n]*\n(?:[^\n]*\n)*?[^\n]*?(\d+) instructions",
        out))
    regs = max((int(m) for m in re.findall(r"Used (\d+) registers", out)), default=0)
    spills = sum(int(a) + int(b) for a, b in
                 re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out))
    return count, regs, spills, elf, runtime


def retired(tool: Path, elf: Path, manifest: Path):
    """Warp instructions the golden model retires running `manifest`'s launch of `elf`."""
    p = run([str(tool), "run", str(elf), "--launch", str(manifest)], cwd=manifest.parent)
    if p.returncode != 0:
        sys.exit(f"error: the run of {elf} with {manifest} failed:\n{p.stderr}")
    return int(re.search(r"retired (\d+) warp instructions", p.stdout).group(1))


def inputs(tmp: Path):
    """(name, PTX file, launch manifests) of every input: the corpus kernels, the examples."""
    for f in CORPUS_FILES:
        stem = f.removesuffix(".ptx")
        yield stem, CORPUS / f, sorted(LAUNCHES.glob(stem + ".*toml"))
    for ptx in sorted((ROOT / "examples").glob("*.ptx")):
        yield "examples/" + ptx.name, ptx, [ptx.with_suffix(".toml")]
    for cu in sorted((ROOT / "examples" / "cuda").glob("*.cu")):
        # `ptxas-rs cuda` knows the clang flags and header; it also runs the kernel once.
        ptx = tmp / (cu.stem + ".ptx")
        manifest = cu.with_suffix(".toml")
        p = run([str(TOOL), "cuda", str(cu), "--launch", str(manifest), "--ptx", str(ptx)],
                cwd=manifest.parent)
        if p.returncode != 0:
            sys.exit(f"error: ptxas-rs cuda failed on {cu}:\n{p.stderr}")
        yield "examples/cuda/" + cu.name, ptx, [manifest]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nvidia", type=Path, required=True,
                    help="folder holding ptxas, cuobjdump and nvdisasm (a venv)")
    args = ap.parse_args()
    nvidia = Nvidia(args.nvidia)
    global TOOL
    TOOL = tool = ptxas_rs()
    rows = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for name, ptx, launches in inputs(tmp):
            o0 = sgpu_assemble(tool, ptx, 0, tmp)
            o3 = sgpu_assemble(tool, ptx, 3, tmp)
            nv = nvidia.assemble(ptx, max(o3[1], 16), tmp)
            dyn0 = sum(retired(tool, o0[3], m) for m in launches) if launches else None
            dyn3 = sum(retired(tool, o3[3], m) for m in launches) if launches else None
            rows.append((name, nv, o0, o3, dyn0, dyn3))
    print_table(rows)


# The six kernels, whose geometric mean and worst ratio are its goal.
GOAL = ["matmul_tiled", "reduction", "warp", "histogram", "devfunc", "big_unrolled"]


def print_table(rows):
    head = ("| input | SASS instr | SASS regs | SASS spill B | sgpu -O0 | sgpu -O3 | of it "
            "runtimes | sgpu regs | sgpu spill B | -O3 / SASS | retired -O0 | retired -O3 |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    ratios = {}
    for name, nv, o0, o3, dyn0, dyn3 in rows:
        nv_cells = ("—", "—", "—") if nv is None else nv
        ratio = "—"
        if nv is not None:
            # NVIDIA's SASS has f64 in hardware (DFMA, DADD) and formats printf's output on
            # the host: sgpu's runtime routines, which stand for those, are left out of the
            # ratio.
            ratios[name] = (o3[0] - o3[4]) / nv[0]
            ratio = f"{ratios[name]:.2f}x"
        dyn = ("—", "—") if dyn0 is None else (dyn0, dyn3)
        print(f"| {name} | {nv_cells[0]} | {nv_cells[1]} | {nv_cells[2]} | {o0[0]} | {o3[0]} "
              f"| {o3[4]} | {o3[1]} | {o3[2]} | {ratio} | {dyn[0]} | {dyn[1]} |")

    def summary(label, values):
        if values:
            geo = math.exp(sum(math.log(r) for r in values) / len(values))
            print(f"geometric mean of -O3 / SASS over {label}: {geo:.2f}x; "
                  f"largest {max(values):.2f}x")

    print()
    goal = [r for n, r in ratios.items() if n.split(".")[0] in GOAL]
    summary(f"the issue's {len(goal)} kernels", goal)
    summary(f"all {len(ratios)} inputs", list(ratios.values()))


if __name__ == "__main__":
    main()
