#!/usr/bin/env python3
"""Writes a timing wrapper around a combinational module, for synth/fmax.sh.

    fmax_wrap.py PORTS.json MODULE [NAME=VALUE | TIED ...] > wrapper.sv

PORTS.json is yosys's `write_json` of the elaborated module. The wrapper, `fmax_top`, has
one clock and one pin in and out: its inputs come from a shift register fed by the input
pin (a flip-flop per input bit), and its outputs go to flip-flops whose exclusive-or is
registered to the output pin, so that every path through the module runs from a flip-flop
to a flip-flop and none of its logic can be optimised away. nextpnr's maximum frequency for
the clock is then that of the module between registers, as it would sit in a pipeline.
Input ports named TIED are tied to zero instead, so that the logic only they drive is left
out (to be measured on its own). NAME=VALUE sets a parameter on the module's instance, so
that the wrapper is the whole design as written, with no `chparam` (whose handling of the
module's name differs between yosys versions).
"""
import json
import sys


def main():
    path, module = sys.argv[1], sys.argv[2]
    params = [a.split("=", 1) for a in sys.argv[3:] if "=" in a]
    tied = {a for a in sys.argv[3:] if "=" not in a}
    with open(path) as f:
        netlist = json.load(f)
    # The clock is the wrapper's; every other input comes from the shift register.
    ins, outs = [], []
    for name, port in netlist["modules"][module]["ports"].items():
        width = len(port["bits"])
        if port["direction"] == "output":
            outs.append((name, width))
        elif name not in tied and name != "clk_i":
            ins.append((name, width))
    n_in = sum(w for _, w in ins)
    n_out = sum(w for _, w in outs)
    lines = [
        "module fmax_top (",
        "  input  logic clk_i,",
        "  input  logic d_i,",
        "  output logic q_o",
        ");",
        f"  logic [{n_in - 1}:0] in_q;",
        f"  logic [{n_out - 1}:0] out_d, out_q;",
        "  always_ff @(posedge clk_i) begin",
        f"    in_q  <= {{in_q[{n_in - 2}:0], d_i}};" if n_in > 1 else "    in_q <= d_i;",
        "    out_q <= out_d;",
        "    q_o   <= ^out_q;",
        "  end",
    ]
    if params:
        lines.append(f"  {module} #(")
        lines.append(",\n".join(f"    .{name}({value})" for name, value in params))
        lines.append("  ) u_dut (")
    else:
        lines.append(f"  {module} u_dut (")
    at_in = at_out = 0
    conns = ["    .clk_i(clk_i)"] if "clk_i" in netlist["modules"][module]["ports"] else []
    for name, width in ins:
        conns.append(f"    .{name}(in_q[{at_in + width - 1}:{at_in}])")
        at_in += width
    for name, width in outs:
        conns.append(f"    .{name}(out_d[{at_out + width - 1}:{at_out}])")
        at_out += width
    conns += [f"    .{name}('0)" for name in sorted(tied)]
    lines.append(",\n".join(conns))
    lines += ["  );", "endmodule"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
