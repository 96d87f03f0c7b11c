//! Allocation checked by running the result: an abstract machine follows which value each
//! physical register and spill slot holds, and every read must find the value the virtual
//! register had at that point. Random programs, with and without spilling.

use super::*;
use crate::mir::Field;
use proptest::prelude::*;
use sgpu_isa::{decode, Op, Reg, RegOrImm};

/// A value: (virtual register, part, version).
type Tag = (u32, u8, u32);

/// One random instruction: `d.dp = a.ap + b.bp`, where a and b were defined before.
#[derive(Clone, Debug)]
struct Step {
    d: u32,
    a: u32,
    b: u32,
}

/// Builds MIR for a straight-line program over `n` virtual registers (the first `pairs` of
/// them 64-bit pairs, defined and read a word at a time).
fn program(n: u32, pairs: u32, steps: &[Step]) -> (Vec<MInst>, VRegs) {
    with_calls(n, pairs, steps, &[], false)
}

/// [`program`] with a `CALL` after each step of `calls` and, for a called function, a `RET`
/// at the end.
fn with_calls(
    n: u32,
    pairs: u32,
    steps: &[Step],
    calls: &[usize],
    ret: bool,
) -> (Vec<MInst>, VRegs) {
    let mut vregs = VRegs::default();
    for i in 0..n {
        vregs.new_reg(Class::Gpr {
            size: if i < pairs { 2 } else { 1 },
        });
    }
    let words = |v: u32| if v < pairs { 2u8 } else { 1 };
    let mut code = Vec::new();
    let iadd = |d: (u32, u8), a: Option<(u32, u8)>, b: Option<(u32, u8)>| {
        let mut m = MInst::new(
            Instruction::new(Op::Iadd {
                rd: Reg(0),
                ra: if a.is_some() { Reg(0) } else { Reg::RZ },
                rb: RegOrImm::Reg(if b.is_some() { Reg(0) } else { Reg::RZ }),
                nb: false,
                cc: false,
                x: false,
                sat: false,
            }),
            1,
        )
        .unwrap();
        let slot = |field, (v, part): (u32, u8), def| Slot::new(field, VReg(v), part, 1, def);
        m.push_slot(slot(Field::of(fields::RD), d, true));
        if let Some(a) = a {
            m.push_slot(slot(Field::of(fields::RA), a, false));
        }
        if let Some(b) = b {
            m.push_slot(slot(Field::of(fields::RB), b, false));
        }
        m
    };
    // Each step reads values already defined (RZ otherwise) and defines one; values live
    // from their definition to their last read, so lifetimes vary and registers get reused.
    let mut defined = vec![false; n as usize];
    let plain = |op| MInst::new(Instruction::new(op), 1).unwrap();
    for (i, s) in steps.iter().enumerate() {
        for p in 0..words(s.d) {
            let read = |v: u32| defined[v as usize].then_some((v, p.min(words(v) - 1)));
            let (a, b) = (read(s.a), read(s.b));
            code.push(iadd((s.d, p), a, b));
        }
        defined[s.d as usize] = true;
        if calls.contains(&i) {
            let mut call = plain(Op::Call {
                target: 0,
                frame: 0,
            });
            call.marks.set(crate::mir::Marks::CALL_FRAME, true);
            code.push(call);
        }
    }
    // The last few values are read at the end.
    for v in (0..n).filter(|v| defined[*v as usize]).take(5) {
        for p in 0..words(v) {
            code.push(iadd((v, p), Some((v, p)), None));
        }
    }
    if ret {
        code.push(plain(Op::Ret));
    }
    (code, vregs)
}

/// Registers a spill load or store moves.
fn words(msize: sgpu_isa::Msize) -> usize {
    match msize {
        sgpu_isa::Msize::B64 => 2,
        sgpu_isa::Msize::B128 => 4,
        _ => 1,
    }
}

/// Runs the original program on tags, giving the tag each instruction must read in ra and
/// rb; then runs the allocated code and checks that every original instruction reads them.
fn check(original: &[MInst], alloc: &Allocation) -> Result<(), String> {
    check_calls(original, alloc, 64, false)
}

/// [`check`], with `CALL`s that leave every register below the callee-saved ones of
/// `budget` holding garbage; when `called`, the code is a called function, whose `RET`
/// must find every callee-saved register holding what its caller had in it.
fn check_calls(
    original: &[MInst],
    alloc: &Allocation,
    budget: u32,
    called: bool,
) -> Result<(), String> {
    let saved_from = callee_saved_from(budget);
    let original: Vec<&MInst> = original
        .iter()
        .filter(|m| m.opcode() == sgpu_isa::opcodes::IADD)
        .collect();
    let mut version: std::collections::HashMap<(u32, u8), u32> = Default::default();
    let mut expected: Vec<[Option<Tag>; 2]> = Vec::new();
    for m in &original {
        let mut reads = [None, None];
        for s in m.slots().filter(|s| !s.def()) {
            let tag = (s.reg.0, s.part(), version[&(s.reg.0, s.part())]);
            reads[usize::from(s.field == Field::of(fields::RB))] = Some(tag);
        }
        expected.push(reads);
        for s in m.slots().filter(|s| s.def()) {
            *version.entry((s.reg.0, s.part())).or_default() += 1;
        }
    }
    // Abstract execution of the allocated code; a caller's values are tagged u32::MAX.
    let mut regs: Vec<Option<Tag>> = vec![None; 256];
    let caller = |r: usize| Some((u32::MAX, 0, r as u32));
    if called {
        for (r, v) in regs.iter_mut().enumerate().skip(saved_from as usize) {
            *v = caller(r);
        }
    }
    let mut memory: std::collections::HashMap<u32, Option<Tag>> = Default::default();
    let mut written: std::collections::HashMap<(u32, u8), u32> = Default::default();
    // Spill code is loads and stores only, so the IADDs are the original instructions.
    let mut k = 0;
    for (i, m) in alloc.code.iter().enumerate() {
        let insn = decode(m.word).map_err(|e| format!("{i}: {e}"))?;
        match insn.op {
            Op::Iadd { rd, ra, rb, .. } => {
                let want = expected[k];
                let rb = match rb {
                    RegOrImm::Reg(r) => r,
                    RegOrImm::Imm(_) => Reg::RZ,
                };
                for (r, want) in [(ra, want[0]), (rb, want[1])] {
                    if let Some(tag) = want {
                        if regs[r.0 as usize] != Some(tag) {
                            return Err(format!(
                                "instruction {k} ({insn}) reads {r} holding {:?}, wanted {tag:?}",
                                regs[r.0 as usize]
                            ));
                        }
                    }
                }
                let s = original[k].slots().find(|s| s.def()).unwrap();
                let v = written.entry((s.reg.0, s.part())).or_default();
                *v += 1;
                regs[rd.0 as usize] = Some((s.reg.0, s.part(), *v));
                k += 1;
            }
            Op::Ld {
                rd, off24, msize, ..
            } => {
                let n = words(msize);
                for w in 0..n {
                    regs[rd.0 as usize + w] =
                        *memory.get(&(off24 as u32 + 4 * w as u32)).unwrap_or(&None);
                }
            }
            Op::St {
                rd, off24, msize, ..
            } => {
                let n = words(msize);
                for w in 0..n {
                    memory.insert(off24 as u32 + 4 * w as u32, regs[rd.0 as usize + w]);
                }
            }
            // What a callee may change.
            Op::Call { .. } => regs[..saved_from as usize].fill(None),
            Op::Ret => {
                for (r, v) in regs.iter().enumerate().take(255).skip(saved_from as usize) {
                    if *v != caller(r) {
                        return Err(format!("{i}: RET with R{r} holding {v:?}"));
                    }
                }
            }
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    Ok(())
}

fn steps(n: u32) -> impl Strategy<Value = Vec<Step>> {
    proptest::collection::vec(
        (0..n, 0..n, 0..n).prop_map(|(d, a, b)| Step { d, a, b }),
        1..120,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Enough registers: no spills, and every read finds its value.
    #[test]
    fn values_never_share_a_live_register(s in steps(20)) {
        let (code, vregs) = program(20, 6, &s);
        prop_assume!(!code.is_empty());
        let alloc = allocate(code.clone(), &vregs, &[], frame(64, 0)).unwrap();
        prop_assert_eq!(alloc.spilled, 0);
        prop_assert!(alloc.registers <= 64);
        check(&code, &alloc).map_err(TestCaseError::fail)?;
    }

    /// Calls: what is live across one keeps its value, in a callee-saved register or in
    /// memory, and a called function gives its caller back every callee-saved register.
    #[test]
    fn values_survive_calls_and_callers_keep_their_registers(
        s in steps(30),
        calls in proptest::collection::vec(0..120usize, 0..4),
        called: bool,
        small: bool,
    ) {
        let budget = if small { 16 } else { 64 };
        let (code, vregs) = with_calls(30, 6, &s, &calls, called);
        let frame = Frame { budget, spill_base: 0, entry: !called };
        let alloc = allocate(code.clone(), &vregs, &[], frame).unwrap();
        prop_assert!(alloc.registers <= budget, "{} registers", alloc.registers);
        check_calls(&code, &alloc, budget, called).map_err(TestCaseError::fail)?;
    }

    /// More live values than registers: spills, and every read still finds its value.
    #[test]
    fn spilled_values_come_back_intact(s in steps(40)) {
        let (code, vregs) = program(40, 10, &s);
        let alloc = allocate(code.clone(), &vregs, &[], frame(16, 0)).unwrap();
        prop_assert!(alloc.registers <= 16, "{} registers", alloc.registers);
        check(&code, &alloc).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn more_live_values_than_registers_spill_and_survive() {
    // Thirty values, each computed from the two before it, all read again at the end: with
    // 16 registers (some kept for spill code) most must live in memory for a while.
    let mut steps: Vec<Step> = (0..30)
        .map(|d| Step {
            d,
            a: d.saturating_sub(1),
            b: d.saturating_sub(2),
        })
        .collect();
    steps.extend((0..30).map(|d| Step {
        d: 39 - d % 10,
        a: d,
        b: 29 - d,
    }));
    let (code, vregs) = program(40, 4, &steps);
    let alloc = allocate(code.clone(), &vregs, &[], frame(16, 0x100)).unwrap();
    assert!(alloc.spilled > 0, "nothing spilled");
    assert!(alloc.registers <= 16, "{} registers", alloc.registers);
    assert!(alloc.spill_store_bytes > 0 && alloc.spill_load_bytes > 0);
    check(&code, &alloc).unwrap();
    // Spill slots past the reach of the signed 24-bit offset are an error, not a wrapped
    // offset; so are slots past u32.
    for base in [(1 << 23) - 8, u32::MAX - 4] {
        let err = allocate(code.clone(), &vregs, &[], frame(16, base))
            .err()
            .unwrap();
        assert_eq!(err.field, fields::OFF24);
        assert!(err.value > (1 << 23) - 1, "{err}");
    }
}

/// Random live intervals: (start, length, class), with a class index 0..4 for general
/// registers of 1, 2 and 4 words and predicates.
fn random_intervals() -> impl Strategy<Value = Vec<(u32, u32, usize)>> {
    proptest::collection::vec((0..200u32, 0..60u32, 0..4usize), 1..150)
}

/// The intervals as `allocate` hands them to the scan: sorted by start, then end.
fn interval_list(spec: &[(u32, u32, usize)]) -> (Vec<Interval>, VRegs) {
    let mut vregs = VRegs::default();
    let classes = [
        Class::Gpr { size: 1 },
        Class::Gpr { size: 2 },
        Class::Gpr { size: 4 },
        Class::Pred,
    ];
    let mut list: Vec<Interval> = spec
        .iter()
        .map(|&(start, len, class)| Interval {
            v: vregs.new_reg(classes[class]),
            start,
            end: start + len,
        })
        .collect();
    list.sort_unstable_by_key(|i| (i.start, i.end, i.v.0));
    (list, vregs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `allocate` skips the first scan when `sure_spills` says it would spill; that must never
    /// be wrong, and for predicates (and, without calls, registers all of one word) it must
    /// be exact.
    #[test]
    fn sure_spills_agrees_with_the_scan(
        spec in random_intervals(),
        calls in proptest::collection::vec(0..130u32, 0..3),
        limit in 1u32..24,
        costs in proptest::collection::vec(0.0f32..4.0, 64),
    ) {
        let mut calls: Vec<u32> = calls.into_iter().map(|c| 2 * c).collect();
        calls.sort_unstable();
        let (list, vregs) = interval_list(&spec);
        let costs: Vec<f32> = (0..vregs.len()).map(|v| costs[v % costs.len()]).collect();
        let sure = sure_spills(&list, &vregs, &calls, limit, 130);
        let hints = vec![None; vregs.len()];
        let weights = (&costs[..], &hints[..]);
        let at = Calls { at: &calls, saved_from: callee_saved_from(limit) };
        let homes = scan(&list, &vregs, at, weights, (limit, u32::from(PREDICATES)));
        let spilled = |pred: bool| list.iter().any(|i| {
            matches!(homes[i.v.0 as usize], Home::Spilled(_))
                && (vregs.class(i.v) == Class::Pred) == pred
        });
        prop_assert_eq!(sure.pred, spilled(true));
        prop_assert!(!sure.gpr || spilled(false), "sure of a spill the scan did not make");
        // Without calls (after which only callee-saved registers hold a value), one-word
        // values spill exactly when too many are live.
        if calls.is_empty() && spec.iter().all(|&(_, _, class)| class == 0 || class == 3) {
            prop_assert_eq!(sure.gpr, spilled(false));
        }
    }
}

/// A kernel's frame with `budget` registers and spill slots from `spill_base`.
fn frame(budget: u32, spill_base: u32) -> Frame {
    Frame {
        budget,
        spill_base,
        entry: true,
    }
}

/// What one allocation chose, as [`observe`] records it for the tests that assemble whole
/// modules: every value's interval and home, the calls, and the code written with each
/// original instruction's index in it.
pub(super) struct Observed {
    pub budget: u32,
    pub classes: Vec<Class>,
    pub ranges: Vec<Option<(u32, u32)>>,
    pub homes: Vec<Home>,
    pub calls: Vec<u32>,
    pub code: Vec<MInst>,
    pub new_index: Vec<usize>,
}

thread_local! {
    /// The allocations made on this thread while [`observing`] runs.
    static OBSERVED: std::cell::RefCell<Option<Vec<Observed>>> =
        const { std::cell::RefCell::new(None) };
}

/// Called by `allocate` with what it chose; kept only while [`observing`].
pub(super) fn observe(what: impl FnOnce() -> Observed) {
    OBSERVED.with(|o| {
        if let Some(list) = o.borrow_mut().as_mut() {
            list.push(what());
        }
    });
}

/// Runs `f`, and gives what every allocation it made chose.
fn observing<T>(f: impl FnOnce() -> T) -> (T, Vec<Observed>) {
    OBSERVED.with(|o| *o.borrow_mut() = Some(Vec::new()));
    let result = f();
    let seen = OBSERVED.with(|o| o.borrow_mut().take()).unwrap_or_default();
    (result, seen)
}

/// Each value spilled to local memory although some register of its class was free over its
/// whole interval: no value in a register overlaps it there and no instruction written for
/// the instructions it spans (the original and its spill code) names it. The class: an
/// aligned tuple of its size, a callee-saved one when the value lives across a call, within
/// the budget; predicates P0 to P6, none across a call. Spill code is written per
/// instruction and may use any register above the values', so a register no instruction in
/// the interval names was free for the value to stay in. Found independently of the
/// allocator's own bookkeeping: from the registers the written code names. (A value
/// recomputed before each read instead, `remat.rs`, is no spill: no memory, no store.)
fn wasted_spills(o: &Observed) -> Vec<String> {
    let originals = o.new_index.len() - 1;
    // Per register, the original instructions whose written code names it (in order), and
    // the intervals of the values it holds (disjoint, in order once sorted).
    let mut named: Vec<Vec<u32>> = vec![Vec::new(); 256];
    let mut named_pred: Vec<Vec<u32>> = vec![Vec::new(); PREDICATES as usize];
    for i in 0..originals {
        for m in &o.code[o.new_index[i]..o.new_index[i + 1]] {
            let insn = decode(m.word).expect("allocated code decodes");
            let roles = insn.op.roles();
            for r in roles.regs.iter().flatten() {
                for k in 0..u32::from(r.count) {
                    let at = &mut named[(u32::from(r.first.0) + k).min(255) as usize];
                    if at.last() != Some(&(i as u32)) {
                        at.push(i as u32);
                    }
                }
            }
            let guard = [insn.guard.pred];
            let preds = roles.preds.iter().flatten().map(|p| p.pred).chain(guard);
            for p in preds.filter(|p| p.0 < PREDICATES) {
                let at = &mut named_pred[p.0 as usize];
                if at.last() != Some(&(i as u32)) {
                    at.push(i as u32);
                }
            }
        }
    }
    let (held, held_pred) = super::unspill::held(&o.classes, &o.homes, &o.ranges, 256);
    // Whether a register is free over positions `s..=e`.
    let free = |named: &[u32], held: &[(u32, u32)], (s, e): (u32, u32)| {
        let first = named.partition_point(|&i| i < s / 2);
        let busy = named.get(first).is_some_and(|&i| i <= e / 2);
        !busy && held.iter().all(|&(hs, he)| he < s || e < hs)
    };
    let saved_from = callee_saved_from(o.budget);
    let mut wasted = Vec::new();
    for (v, home) in o.homes.iter().enumerate() {
        let (Home::Spilled(_), Some((s, e))) = (*home, o.ranges[v]) else {
            continue;
        };
        let interval = Interval {
            v: VReg(v as u32),
            start: s,
            end: e,
        };
        let across = across_call(&o.calls, &interval);
        let line = o.code[o.new_index[s as usize / 2]].line;
        let found = match o.classes[v] {
            Class::Gpr { size } => {
                let size = u32::from(size);
                let lowest = if across { saved_from } else { 0 };
                (lowest.div_ceil(size) * size..o.budget)
                    .step_by(size as usize)
                    .filter(|r| r + size <= o.budget)
                    .find(|&r| {
                        (r..r + size).all(|k| free(&named[k as usize], &held[k as usize], (s, e)))
                    })
                    .map(|r| format!("R{r}"))
            }
            Class::Pred if across => None,
            Class::Pred => (0..PREDICATES as usize)
                .find(|&p| free(&named_pred[p], &held_pred[p], (s, e)))
                .map(|p| format!("P{p}")),
        };
        if let Some(r) = found {
            wasted.push(format!(
                "%{v} ({:?}, PTX line {line}, positions {s}..={e}) spilled while {r} was free",
                o.classes[v]
            ));
        }
    }
    wasted
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random programs with pairs and calls, at 16 registers: no value stays in memory while
    /// a register of its class is free over its life, every read finds its value, and the
    /// budget holds.
    #[test]
    fn no_value_spills_while_a_register_is_free_in_random_programs(
        s in steps(40),
        calls in proptest::collection::vec(0..120usize, 0..3),
    ) {
        let (code, vregs) = with_calls(40, 10, &s, &calls, false);
        let (alloc, seen) = observing(|| allocate(code.clone(), &vregs, &[], frame(16, 0)));
        let alloc = alloc.unwrap();
        prop_assert!(alloc.registers <= 16, "{} registers", alloc.registers);
        check_calls(&code, &alloc, 16, false).map_err(TestCaseError::fail)?;
        let o = &seen[0];
        let wasted = wasted_spills(o);
        prop_assert!(wasted.is_empty(), "{:#?}", wasted);
    }
}

/// Assembles PTX at `budget` registers and audits every allocation made: what
/// [`wasted_spills`] found, and how many values were spilled.
fn audit_module(name: &str, source: &str, budget: u32) -> (Vec<String>, usize) {
    let (module, diags) = ptx_grammar::parse(source);
    assert!(diags.is_empty(), "{name}: {diags:?}");
    let diags = ptx_grammar::check::check(&module);
    assert!(diags.is_empty(), "{name}: {diags:?}");
    let options = crate::Options {
        max_registers: budget,
        opt_level: 3,
    };
    let (assembled, seen) = observing(|| crate::assemble(source, name, &module, &options));
    assert!(assembled.is_ok(), "{name} does not assemble");
    let mut wasted = Vec::new();
    let mut spilled = 0;
    for (f, o) in seen.iter().enumerate() {
        spilled += (o.homes.iter())
            .filter(|h| matches!(h, Home::Spilled(_)))
            .count();
        let found = wasted_spills(o);
        wasted.extend(
            found
                .iter()
                .map(|w| format!("{name} at {budget}, function {f}: {w}")),
        );
    }
    (wasted, spilled)
}

/// The directory of shared reference material (the corpus), as the top-level tests find it.
fn shared_dir() -> std::path::PathBuf {
    let dir = std::env::var_os("PTXAS_SHARED").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        std::path::PathBuf::from,
    );
    assert!(
        dir.join("corpus").is_dir(),
        "reference material not found at {} (set PTXAS_SHARED)",
        dir.display()
    );
    dir
}

/// No value is spilled while a register of its class is free over its whole life (the
/// issue: `big_unrolled` at 16 registers used 9 and still stored a value and loaded it back
/// at once; at 64, 57). Kernels that spill at 16, 32 and 64 registers: the corpus's long
/// unrolled kernels, its device functions and divergent code (calls into the f64 runtime),
/// and test kernels with calls, recursion and 64-bit values.
#[test]
fn no_value_spills_while_a_register_of_its_class_is_free() {
    let corpus = shared_dir().join("corpus");
    let kernels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels");
    let files = [
        corpus.join("generated/clang16_cuda/big_unrolled.sm80.O2.ptx"),
        corpus.join("generated/clang16_cuda/devfunc.sm80.O2.ptx"),
        corpus.join("generated/clang16_cuda/divergent.sm80.O2.ptx"),
        corpus.join("generated/clang16_cuda/matmul_tiled.sm80.O2.ptx"),
        corpus.join("gpuocelot/parboil/mri-q.ptx"),
        kernels.join("calls.ptx"),
        kernels.join("regress/recursion.ptx"),
        kernels.join("more64.ptx"),
    ];
    let mut wasted = Vec::new();
    let mut spilled = 0;
    for file in &files {
        let source =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file.file_name().unwrap().to_string_lossy();
        for budget in [16, 32, 64] {
            let (w, k) = audit_module(&name, &source, budget);
            wasted.extend(w);
            spilled += k;
        }
    }
    // 173 now (calls into the f64 runtime, recursion, mri-q at 16); 481 with the allocator
    // of the issue, 467 of them while a register was free.
    assert!(
        spilled > 50,
        "{spilled} values spilled: the test tests little"
    );
    let shown: Vec<&String> = wasted.iter().take(20).collect();
    assert!(
        wasted.is_empty(),
        "{} values spilled while a register was free, among them:\n{shown:#?}",
        wasted.len()
    );
}
