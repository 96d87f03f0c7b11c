//! What the core can run, checked before a co-simulation starts: an instruction of a unit
//! the RTL does not have yet is refused by name and PTX line, instead of showing up as
//! `TRAP_UNIMPLEMENTED` mid-run. This mirrors the core's decode (`unimplemented` in
//! hw/sgpu_core.sv, the same for every lane and warp count); tests/cosim.rs checks the two
//! agree on every kernel it runs.

use sgpu_isa::{Aop, Aty, Op, Unit};
use sgpu_sim::program::{Function, Program};

/// Why the core cannot run `op`: the unit it lacks; `None` when it can.
pub fn missing_unit(op: &Op) -> Option<&'static str> {
    match op.unit() {
        Unit::Float => match op {
            Op::Fadd { .. }
            | Op::Fadd32i { .. }
            | Op::Fmul { .. }
            | Op::Fmul32i { .. }
            | Op::Ffma { .. }
            | Op::Ffma32i { .. }
            | Op::Fmnmx { .. }
            | Op::Fsetp { .. }
            | Op::F2i { .. }
            | Op::I2f { .. } => None,
            Op::Fdiv { .. } | Op::Fsqrt { .. } | Op::Frcp { .. } => Some("f32 divider"),
            _ => Some("conversion between float formats (F2F)"),
        },
        Unit::Sfu => Some("special-function unit"),
        Unit::Warp => Some("warp-operation unit"),
        Unit::Mem => match *op {
            Op::Atom { aop, aty, .. } | Op::Red { aop, aty, .. } if float_atomic(aop, aty) => {
                Some("f32 unit (float atomics)")
            }
            _ => None,
        },
        Unit::Control | Unit::Int | Unit::Surface | Unit::Video => None,
    }
}

/// An atomic whose operation is a float one, the f32 unit's: add on f32, and add, min and
/// max on the 16-bit floats and their pairs.
fn float_atomic(aop: Aop, aty: Aty) -> bool {
    let half = matches!(aty, Aty::F16 | Aty::F16x2 | Aty::Bf16 | Aty::Bf16x2);
    (aty == Aty::F32 && aop == Aop::Add) || (half && matches!(aop, Aop::Add | Aop::Min | Aop::Max))
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
