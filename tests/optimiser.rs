//! The optimiser against the literal translation on random programs: random PTX kernels of
//! integer arithmetic on 32- and 64-bit registers, comparisons, predicate logic, selects,
//! guards, forward branches, counted loops, global loads and shared loads and stores, run at
//! -O3 and -O0 (`common::Both`), which must leave the same results. Every register is stored
//! at the end, so a wrong value anywhere shows.
//!
//! The shapes that once broke it run among them (`Gen::shapes`): carry chains under guards
//! and across labels, 64-bit comparisons combined with predicates (one or two destinations),
//! `cnot.b64`, and 32-bit shared addresses that wrap below zero.
//!
//! Every program runs at -O1, -O2 and -O3. CI runs `OPT_CASES` (256) programs;
//! `SGPU_OPT_CASES=20000 cargo test --release --test optimiser` by hand runs more. A failing
//! program is printed whole.

mod common;

use common::{list, xorshift};

/// Random programs in CI; `SGPU_OPT_CASES` overrides.
const OPT_CASES: u64 = 256;
/// 32-bit registers `%r0..%r14`; `%r15` counts loops and nothing else writes it.
const REGS: u32 = 15;
/// 64-bit registers `%rd4..%rd7` (below are the buffers' addresses).
const WIDE: [u32; 4] = [4, 5, 6, 7];
const PREDS: u32 = 4;
/// Threads: two warps, so that guards and branches on `%tid` diverge within each.
const THREADS: usize = 64;
const INPUT_WORDS: usize = 64;

struct Gen {
    next: Box<dyn FnMut() -> u64>,
    labels: u32,
    /// Registers `%t0..` written once each.
    temps: u32,
    text: String,
}

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        (self.next)() % n
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len() as u64) as usize]
    }

    fn reg(&mut self) -> String {
        format!("%r{}", self.below(u64::from(REGS)))
    }

    fn wide(&mut self) -> String {
        format!("%rd{}", WIDE[self.below(4) as usize])
    }

    fn pred(&mut self) -> String {
        format!("%p{}", self.below(u64::from(PREDS)))
    }

    /// A 32-bit source: a register, or an immediate of a kind the optimiser treats apart
    /// (zero, a byte, a large or negative value).
    fn src(&mut self) -> String {
        match self.below(6) {
            0 => "0".to_string(),
            1 => format!("{}", self.below(256)),
            2 => format!("{}", (self.next)() as i32),
            _ => self.reg(),
        }
    }

    fn line(&mut self, s: &str) {
        self.text.push('\t');
        self.text.push_str(s);
        self.text.push_str(";\n");
    }

    /// One instruction, possibly under a guard.
    fn instruction(&mut self) {
        let guard = match self.below(5) {
            0 => format!("@{} ", self.pred()),
            1 => format!("@!{} ", self.pred()),
            _ => String::new(),
        };
        let (d, a, b, c) = (self.reg(), self.src(), self.src(), self.src());
        let body = match self.below(21) {
            0..=4 => {
                let op = self.pick(&[
                    "add.s32",
                    "sub.s32",
                    "mul.lo.s32",
                    "mul.hi.u32",
                    "mul.hi.s32",
                    "and.b32",
                    "or.b32",
                    "xor.b32",
                    "min.s32",
                    "max.u32",
                    "shl.b32",
                    "shr.u32",
                    "shr.s32",
                ]);
                format!("{op} {d}, {a}, {b}")
            }
            5 => format!("mad.lo.s32 {d}, {a}, {b}, {c}"),
            6 => {
                let cmp = self.pick(&["lt.s32", "eq.s32", "ne.u32", "ge.u32", "gt.s32"]);
                let p = self.pred();
                format!("setp.{cmp} {p}, {a}, {b}")
            }
            7 => {
                let p = self.pred();
                format!("selp.b32 {d}, {a}, {b}, {p}")
            }
            8 => format!("mov.u32 {d}, {a}"),
            9 => {
                let (x, y) = (self.wide(), self.wide());
                let z = if self.below(2) == 0 {
                    self.wide()
                } else {
                    ((self.next)() as i32).to_string()
                };
                format!("add.s64 {x}, {y}, {z}")
            }
            10 => {
                let x = self.wide();
                let t = self.pick(&["s32", "u32"]);
                format!("mul.wide.{t} {x}, {a}, {b}")
            }
            11 => {
                let (x, y) = (self.wide(), self.wide());
                let n = self.below(40);
                format!("shl.b64 {x}, {y}, {n}")
            }
            12 => {
                let x = self.wide();
                format!("cvt.u32.u64 {d}, {x}")
            }
            13 => {
                let x = self.wide();
                let t = self.pick(&["u64.u32", "s64.s32"]);
                let r = self.reg();
                format!("cvt.{t} {x}, {r}")
            }
            14 => {
                let (x, y) = (self.wide(), self.wide());
                format!("mov.b64 {x}, {y}")
            }
            15 => {
                let op = self.pick(&["and", "or", "xor"]);
                let (p, q, r) = (self.pred(), self.pred(), self.pred());
                let neg = self.pick(&["", "!"]);
                format!("{op}.pred {p}, {neg}{q}, {r}")
            }
            16 => {
                let cmp = self.pick(&["lt.s32", "ge.u32", "ne.s32"]);
                let op = self.pick(&["and", "or", "xor"]);
                let (p, q) = (self.pred(), self.pred());
                format!("setp.{cmp}.{op} {p}, {a}, {b}, {q}")
            }
            17 => return self.shared(&guard),
            19 => return self.shapes(&guard),
            18 if self.temps < 250 && guard.is_empty() => {
                // A value written once (an SSA value: in a loop, often an invariant one,
                // which the optimiser may hoist), folded into a random register.
                let t = format!("%t{}", self.temps);
                self.temps += 1;
                let op = self.pick(&["add.s32", "mul.lo.s32", "xor.b32", "shl.b32"]);
                self.line(&format!("{op} {t}, {a}, {b}"));
                format!("add.s32 {d}, {d}, {t}")
            }
            _ => return self.load(&guard),
        };
        self.line(&format!("{guard}{body}"));
    }

    /// The shapes that once broke the optimiser (issue 24): carry chains (under guards, and
    /// read after labels: the carry is live across the blocks of `block`), 64-bit comparisons
    /// combined with a predicate and with two destinations, `cnot` of 64 bits, and 32-bit
    /// shared addresses that wrap below zero and come back through the offset.
    fn shapes(&mut self, guard: &str) {
        let body = match self.below(5) {
            0 | 1 => return self.carry_chain(guard),
            2 => {
                let cmp = self.pick(&["ls.u64", "lt.s64", "hi.u64", "ge.s64", "eq.u64"]);
                let op = self.pick(&["and", "or", "xor"]);
                let (p, q, r, x) = (self.pred(), self.pred(), self.pred(), self.wide());
                let y = match self.below(3) {
                    0 => self.wide(),
                    1 => format!("{}", -(self.below(16) as i64)),
                    _ => format!("{}", (self.next)() as i32),
                };
                let dests = match self.below(2) {
                    0 => p,
                    _ => format!("{p}|{q}"),
                };
                format!("setp.{cmp}.{op} {dests}, {x}, {y}, {r}")
            }
            3 => {
                let (x, y) = (self.wide(), self.wide());
                format!("cnot.b64 {x}, {y}")
            }
            _ => {
                // Below zero by a page, then back in the offset: the thread's own word k.
                let k = self.below(16);
                self.line("add.s32 %s1, %s0, -4096");
                let r = self.reg();
                match self.below(2) {
                    0 => format!("ld.shared.u32 {r}, [%s1+{}]", 4096 + 4 * k),
                    _ => format!("st.shared.u32 [%s1+{}], {r}", 4096 + 4 * k),
                }
            }
        };
        self.line(&format!("{guard}{body}"));
    }

    /// A carry written (maybe under `guard`), then rewritten under other guards or on one
    /// side of a forward branch, with 32-bit arithmetic between, and read. Nothing between
    /// is 64-bit arithmetic, which sgpu computes through the carry too (docs/ptx-dialect.md).
    fn carry_chain(&mut self, guard: &str) {
        let op = self.pick(&["add.cc.u32", "sub.cc.u32", "mad.lo.cc.u32"]);
        let carry_op = |g: &mut Self, op: &str| {
            let (d, a, b, c) = (g.reg(), g.src(), g.src(), g.src());
            match op.starts_with("mad") {
                true => format!("{op} {d}, {a}, {b}, {c}"),
                false => format!("{op} {d}, {a}, {b}"),
            }
        };
        let first = carry_op(self, op);
        self.line(&format!("{guard}{first}"));
        for _ in 0..self.below(3) {
            let op = self.pick(&["add.cc.u32", "addc.cc.u32", "subc.cc.u32", "madc.hi.cc.u32"]);
            let write = carry_op(self, op);
            match self.below(3) {
                0 => {
                    let p = self.pred();
                    self.line(&format!("@{p} {write}"));
                }
                1 => {
                    let (p, label) = (self.pred(), self.labels);
                    self.labels += 1;
                    self.line(&format!("@{p} bra L{label}"));
                    self.line(&write);
                    self.text.push_str(&format!("L{label}:\n"));
                }
                _ => {
                    let (d, a, b) = (self.reg(), self.src(), self.src());
                    let op = self.pick(&["add.s32", "xor.b32", "mul.lo.s32"]);
                    self.line(&format!("{op} {d}, {a}, {b}"));
                }
            }
        }
        let op = self.pick(&["addc.u32", "subc.u32", "madc.lo.u32", "addc.cc.u32"]);
        let read = carry_op(self, op);
        self.line(&read);
    }

    /// A load of the input at a computed index, kept within the buffer.
    fn load(&mut self, guard: &str) {
        let (d, a) = (self.reg(), self.reg());
        self.line(&format!("and.b32 %r16, {a}, {}", INPUT_WORDS - 1));
        self.line("mul.wide.u32 %rd8, %r16, 4");
        self.line("add.s64 %rd8, %rd0, %rd8");
        self.line(&format!("{guard}ld.global.u32 {d}, [%rd8]"));
    }

    /// A store to this thread's 64 bytes of shared memory, or a run of loads of
    /// consecutive words from it (which the optimiser may merge into one wide load).
    fn shared(&mut self, guard: &str) {
        let word = self.below(16);
        if self.below(3) == 0 {
            let r = self.reg();
            self.line(&format!("{guard}st.shared.u32 [%s0+{}], {r}", 4 * word));
            return;
        }
        let run = 1 + self.below(4);
        let words = word..(word + run).min(16);
        if self.below(2) == 0 || !guard.is_empty() || self.temps > 250 {
            for k in words {
                let d = self.reg();
                self.line(&format!("{guard}ld.shared.u32 {d}, [%s0+{}]", 4 * k));
            }
            return;
        }
        // Into registers written once (SSA values, which the optimiser may load as one
        // wide access), then folded into the random ones.
        let fresh: Vec<String> = words
            .map(|k| {
                let t = format!("%t{}", self.temps);
                self.temps += 1;
                self.line(&format!("ld.shared.u32 {t}, [%s0+{}]", 4 * k));
                t
            })
            .collect();
        for t in fresh {
            let d = self.reg();
            self.line(&format!("xor.b32 {d}, {d}, {t}"));
        }
    }

    fn block(&mut self, depth: u32, length: u64) {
        for _ in 0..length {
            match self.below(12) {
                0 if depth < 2 => {
                    // A forward branch over a block, taken by some threads.
                    let (p, label) = (self.pred(), self.labels);
                    self.labels += 1;
                    let neg = self.pick(&["", "!"]);
                    self.line(&format!("@{neg}{p} bra L{label}"));
                    let n = 1 + self.below(5);
                    self.block(depth + 1, n);
                    self.text.push_str(&format!("L{label}:\n"));
                }
                1 if depth == 0 => {
                    // A loop counted by %r15, the same trip count in every thread.
                    let label = self.labels;
                    self.labels += 1;
                    let trips = 1 + self.below(4);
                    self.line(&format!("mov.u32 %r15, {trips}"));
                    self.text.push_str(&format!("L{label}:\n"));
                    let n = 1 + self.below(6);
                    self.block(depth + 1, n);
                    self.line("sub.s32 %r15, %r15, 1");
                    self.line("setp.ne.s32 %p4, %r15, 0");
                    self.line(&format!("@%p4 bra L{label}"));
                }
                _ => self.instruction(),
            }
        }
    }
}

/// A random kernel `(in, out)`: each thread starts its registers from its thread index,
/// the input and constants, runs random code, and stores every register.
fn program(seed: u64) -> String {
    let mut g = Gen {
        next: Box::new(xorshift(seed | 1)),
        labels: 0,
        temps: 0,
        text: String::new(),
    };
    g.text.push_str(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry rnd(.param .u64 in, .param .u64 out)\n{\n\
         \t.reg .b32 %r<17>;\n\t.reg .b64 %rd<9>;\n\t.reg .pred %p<5>;\n\t.reg .b32 %s<3>;\n\t.reg .b32 %t<256>;\n\
         \t.shared .align 16 .b8 pad[48];\n\t.shared .align 16 .b8 sh[4096];\n",
    );
    g.line("ld.param.u64 %rd0, [in]");
    g.line("ld.param.u64 %rd1, [out]");
    g.line("cvta.to.global.u64 %rd0, %rd0");
    g.line("cvta.to.global.u64 %rd1, %rd1");
    g.line("mov.u32 %r0, %tid.x");
    // Each thread's 64 bytes of shared memory, from %s0 (`sh` lies past `pad`: its address is
    // a constant the optimiser may fold into the accesses' offsets).
    g.line("shl.b32 %s1, %r0, 6");
    g.line("mov.u32 %s2, sh");
    g.line("add.s32 %s0, %s2, %s1");
    for r in 1..REGS {
        match g.below(3) {
            0 => {
                let v = (g.next)() as i32;
                g.line(&format!("mov.u32 %r{r}, {v}"));
            }
            1 => {
                let k = g.below(100);
                g.line(&format!("add.s32 %r{r}, %r0, {k}"));
            }
            _ => {
                let from = g.below(u64::from(r));
                g.line(&format!("mul.wide.u32 %rd8, %r{from}, 4"));
                g.line("and.b64 %rd8, %rd8, 252");
                g.line("add.s64 %rd8, %rd0, %rd8");
                g.line(&format!("ld.global.u32 %r{r}, [%rd8]"));
            }
        }
    }
    for (k, w) in WIDE.iter().enumerate() {
        g.line(&format!("mul.wide.s32 %rd{w}, %r{}, {}", k + 1, 3 + k));
    }
    for p in 0..PREDS {
        let bound = g.below(THREADS as u64);
        g.line(&format!("setp.lt.u32 %p{p}, %r0, {bound}"));
    }
    let n = 8 + g.below(30);
    g.block(0, n);
    // Every register to out[tid][..]: 15 words, then 4 pairs.
    g.line("mov.u32 %r16, %tid.x");
    g.line("mul.wide.u32 %rd8, %r16, 96");
    g.line("add.s64 %rd8, %rd1, %rd8");
    for r in 0..REGS {
        g.line(&format!("st.global.u32 [%rd8+{}], %r{r}", 4 * r));
    }
    for (k, w) in WIDE.iter().enumerate() {
        g.line(&format!("st.global.u64 [%rd8+{}], %rd{w}", 64 + 8 * k));
    }
    g.line("ret");
    g.text.push_str("}\n");
    g.text
}

#[test]
fn optimised_code_computes_what_the_literal_translation_does() {
    let cases = std::env::var("SGPU_OPT_CASES").map_or(OPT_CASES, |v| v.parse().unwrap());
    let mut seeds = xorshift(0x0917);
    let input: Vec<u32> = {
        let mut next = xorshift(0x1234);
        (0..INPUT_WORDS).map(|_| next() as u32).collect()
    };
    let manifest = format!(
        "block = [{THREADS}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
        list(&input),
        THREADS * 96
    );
    let started = std::time::Instant::now();
    for _ in 0..cases {
        let source = program(seeds());
        common::assert_checks(&source);
        for level in 1..=3 {
            let run = std::panic::catch_unwind(|| {
                let both = common::load_both_at(&source, "random.ptx", level);
                both.finish(&manifest, std::path::Path::new("."))
            });
            assert!(run.is_ok(), "this program differs at -O{level}:\n{source}");
        }
    }
    println!(
        "optimiser: {cases} random programs, each at -O1, -O2 and -O3 against -O0, agree ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// Device functions no kernel reaches are dropped from optimised code (sgpu has no linker,
/// so nothing else can call them), and kept at -O0; one reached through a function pointer
/// in an initializer stays.
#[test]
fn unreferenced_device_functions_are_dropped() {
    let source = ".version 7.0\n.target sm_80\n.address_size 64\n\n\
        .visible .func (.param .b32 r) unused(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tst.param.b32 [r], %r0;\n\tret;\n}\n\n\
        .visible .func (.param .b32 r) pointed(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tst.param.b32 [r], %r0;\n\tret;\n}\n\n\
        .global .u64 table[1] = {pointed};\n\n\
        .visible .func (.param .b32 r) called(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
        \tld.param.b32 %r0, [a];\n\tadd.s32 %r1, %r0, 1;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n\n\
        .visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\
        \tld.param.u64 %rd0, [out];\n\tmov.u32 %r0, 7;\n\t{\n\t.param .b32 a;\n\t.param .b32 r;\n\
        \tst.param.b32 [a], %r0;\n\tcall (r), called, (a);\n\tld.param.b32 %r1, [r];\n\t}\n\
        \tst.global.u32 [%rd0], %r1;\n\tret;\n}\n";
    common::assert_checks(source);
    let (module, _) = ptx_grammar::parse(source);
    let names = |opt_level| {
        let options = ptx_encoder::Options {
            opt_level,
            ..Default::default()
        };
        let a = ptx_encoder::assemble(source, "f.ptx", &module, &options).unwrap();
        a.functions.into_iter().map(|f| f.name).collect::<Vec<_>>()
    };
    assert_eq!(names(0), ["unused", "pointed", "called", "k"]);
    assert_eq!(names(3), ["pointed", "called", "k"]);
    let manifest = "params = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 4\n";
    let p = common::load_both(source, "f.ptx").finish(manifest, std::path::Path::new("."));
    assert_eq!(common::u32s(&p, "out"), [8]);
}
