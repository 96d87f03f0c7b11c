//! What the core can run, checked before a co-simulation starts: an instruction of a unit
//! the RTL does not have yet is refused by name and PTX line, instead of showing up as
//! `TRAP_UNIMPLEMENTED` mid-run. This mirrors the core's decode (`unimplemented` in
//! hw/sgpu_core.sv, the same for every lane and warp count); tests/cosim.rs checks the two
//! agree on every kernel it runs.

use sgpu_isa::{Op, Unit};
use sgpu_sim::program::{Function, Program};

/// Why the core cannot run `op`: the unit it lacks; `None` when it can.
pub fn missing_unit(op: &Op) -> Option<&'static str> {
    match op.unit() {
        Unit::Sfu => Some("special-function unit"),
        Unit::Control
        | Unit::Int
        | Unit::Float
        | Unit::Mem
        | Unit::Surface
        | Unit::Video
        | Unit::Warp => None,
    }
}

/// The first instruction `kernel` can reach (through direct calls; any function, if it calls
/// indirectly) that the core cannot run, as a message naming it and its PTX line.
pub fn unsupported(program: &Program, kernel: &Function) -> Option<String> {
    for f in reachable(program, kernel) {
        for pc in f.start..f.start + f.len {
            let Some(d) = program.decoded.get(pc as usize).and_then(Option::as_ref) else {
                continue;
            };
            if let Some(unit) = missing_unit(&d.insn.op) {
                return Some(format!(
                    "{}: `{}`: the RTL core has no {unit} yet (the golden model runs it: \
                     `ptxas-rs run`)",
                    program.source_line(pc),
                    d.insn
                ));
            }
        }
    }
    None
}

/// `kernel` and the functions it may call, in the order found.
fn reachable<'p>(program: &'p Program, kernel: &'p Function) -> Vec<&'p Function> {
    let mut found = vec![kernel];
    let mut next = 0;
    while let Some(f) = found.get(next).copied() {
        next += 1;
        for pc in f.start..f.start + f.len {
            let op = program
                .decoded
                .get(pc as usize)
                .and_then(Option::as_ref)
                .map(|d| &d.insn.op);
            let callees: Vec<&Function> = match op {
                // Branch targets count bytes from the next instruction.
                Some(Op::Call { target, .. }) => {
                    let to = i64::from(pc) + 1 + i64::from(*target) / 8;
                    program
                        .functions
                        .iter()
                        .filter(|g| (i64::from(g.start)..i64::from(g.start + g.len)).contains(&to))
                        .collect()
                }
                Some(Op::Callr { .. }) => {
                    program.functions.iter().filter(|g| !g.info.entry).collect()
                }
                _ => Vec::new(),
            };
            for g in callees {
                if !found.iter().any(|h| std::ptr::eq(*h, g)) {
                    found.push(g);
                }
            }
        }
    }
    found
}
