//! Random PTX kernels for the optimiser's differential test (`Gen`, `program`): integer
//! arithmetic on 32- and 64-bit registers, comparisons, predicate logic, selects, guards,
//! forward branches, loops counted uniformly and per thread (zero trips included), global
//! loads, shared loads and stores, and the shapes that once broke the optimiser
//! (`Gen::shapes`): carry chains under guards and across labels, 64-bit comparisons combined
//! with predicates, `cnot.b64`, 32-bit shared addresses that wrap below zero. Beside them
//! (`Gen::memory`, `Gen::call`): stores and loads through two pointers that may alias (one
//! generic), in divergent code, atomics and reductions followed by loads of the same word,
//! and calls of a recursive function and of one taking `.param` arguments of every size and
//! an array of a random alignment, under uniform and divergent branches, with every random
//! register live across the call.

use super::common::xorshift;

/// 32-bit registers `%r0..%r14`; `%r15` counts loops and nothing else writes it.
const REGS: u32 = 15;
/// 64-bit registers `%rd4..%rd7` (below are the buffers' addresses; `%rd8` and `%rd10` are
/// addresses computed for one access, `%rd9` the thread's 64 bytes of `scratch`).
const WIDE: [u32; 4] = [4, 5, 6, 7];
const PREDS: u32 = 4;
/// Threads: two warps, so that guards and branches on `%tid` diverge within each.
pub const THREADS: usize = 64;
pub const INPUT_WORDS: usize = 64;
/// Bytes of `out` a thread stores: 15 words, then 4 pairs.
pub const OUT_BYTES: usize = 96;
/// Bytes of `scratch` a thread owns.
pub const SCRATCH_BYTES: usize = 64;

struct Gen {
    next: Box<dyn FnMut() -> u64>,
    labels: u32,
    /// Call sites so far (each declares its arguments in a block of its own).
    calls: u32,
    /// The alignment of `mix`'s array argument in this program: 4, 8 or 16.
    align: u32,
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
        let body = match self.below(24) {
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
            20 | 21 => return self.memory(&guard),
            22 => return self.call(),
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

    /// Through two pointers into the thread's `scratch` words: one at a word the generator
    /// picks, one at a word a register picks (they may be the same word, which the optimiser
    /// cannot know), a store or an atomic through one (under `guard`), then a load through
    /// the other. Sometimes the register's pointer is generic, or the store 64 bits wide
    /// over two words.
    fn memory(&mut self, guard: &str) {
        let (a, k) = (self.reg(), 4 * self.below(16));
        self.line(&format!("and.b32 %r16, {a}, 15"));
        self.line("mul.wide.u32 %rd10, %r16, 4");
        self.line("add.s64 %rd10, %rd9, %rd10");
        let fixed = format!("%rd9+{k}");
        let (near, far) = match self.below(2) {
            0 => ("%rd10".to_string(), fixed),
            _ => (fixed, "%rd10".to_string()),
        };
        let (d, r) = (self.reg(), self.reg());
        let write = match self.below(6) {
            0 | 1 => format!("st.global.u32 [{near}], {r}"),
            2 => {
                let op = self.pick(&["add.u32", "exch.b32", "max.u32", "min.s32", "or.b32"]);
                let old = self.reg();
                format!("atom.global.{op} {old}, [{near}], {r}")
            }
            3 => {
                let op = self.pick(&["add.u32", "xor.b32", "max.s32"]);
                format!("red.global.{op} [{near}], {r}")
            }
            4 => {
                self.line("cvta.global.u64 %rd10, %rd10");
                format!("st.u32 [%rd10], {r}")
            }
            _ => {
                let x = self.wide();
                format!("st.global.u64 [%rd9+{}], {x}", 8 * self.below(8))
            }
        };
        self.line(&format!("{guard}{write}"));
        let read = match far.as_str() {
            "%rd10" if write.starts_with("st.u32") => "ld.u32",
            _ => "ld.global.u32",
        };
        self.line(&format!("{read} {d}, [{far}]"));
    }

    /// A call of `rec` (recursive: its depth is 0 to 3, the same in every thread or this
    /// thread's own) or of `mix` (arguments of 8 to 64 bits and a 16-byte array), maybe
    /// skipped by some threads (a divergent branch) or by all alike (`%p5`, uniform).
    fn call(&mut self) {
        let skip = match self.below(3) {
            0 => None,
            1 => Some(self.pred()),
            _ => Some("%p5".to_string()),
        };
        let label = self.labels;
        if let Some(p) = &skip {
            self.labels += 1;
            let neg = self.pick(&["", "!"]);
            self.line(&format!("@{neg}{p} bra L{label}"));
        }
        let site = self.calls;
        self.calls += 1;
        self.text.push_str("\t{\n");
        if self.below(2) == 0 {
            let d = self.reg();
            let x = self.src();
            let n = match self.below(2) {
                0 => format!("{}", self.below(4)),
                _ => {
                    let a = self.reg();
                    self.line(&format!("and.b32 %r16, {a}, 3"));
                    "%r16".to_string()
                }
            };
            self.line(&format!(".param .b32 n{site}"));
            self.line(&format!(".param .b32 x{site}"));
            self.line(&format!(".param .b32 r{site}"));
            self.line(&format!("st.param.b32 [n{site}], {n}"));
            self.line(&format!("st.param.b32 [x{site}], {x}"));
            self.line(&format!("call (r{site}), rec, (n{site}, x{site})"));
            self.line(&format!("ld.param.b32 {d}, [r{site}]"));
        } else {
            self.mix_call(site);
        }
        self.text.push_str("\t}\n");
        if skip.is_some() {
            self.text.push_str(&format!("L{label}:\n"));
        }
    }

    /// The arguments of `mix` from random registers, the call, its result into a wide one.
    fn mix_call(&mut self, site: u32) {
        let align = self.align;
        for (name, ty) in [("c", "b8"), ("h", "b16"), ("k", "b32"), ("a", "b64")] {
            self.line(&format!(".param .{ty} {name}{site}"));
        }
        self.line(&format!(".param .align {align} .b8 v{site}[16]"));
        self.line(&format!(".param .align 8 .b8 r{site}[8]"));
        let (c, h, k, a) = (self.reg(), self.reg(), self.src(), self.wide());
        self.line(&format!("cvt.u16.u32 %h0, {c}"));
        self.line(&format!("st.param.b8 [c{site}], %h0"));
        self.line(&format!("cvt.u16.u32 %h0, {h}"));
        self.line(&format!("st.param.b16 [h{site}], %h0"));
        self.line(&format!("st.param.b32 [k{site}], {k}"));
        self.line(&format!("st.param.b64 [a{site}], {a}"));
        let words: Vec<String> = (0..4).map(|_| self.reg()).collect();
        match align {
            16 => self.line(&format!(
                "st.param.v4.b32 [v{site}], {{{}}}",
                words.join(", ")
            )),
            8 => {
                let text = format!("st.param.v2.b32 [v{site}], {{{}, {}}}", words[0], words[1]);
                self.line(&text);
                let text = format!(
                    "st.param.v2.b32 [v{site}+8], {{{}, {}}}",
                    words[2], words[3]
                );
                self.line(&text);
            }
            _ => {
                for (i, w) in words.iter().enumerate() {
                    self.line(&format!("st.param.b32 [v{site}+{}], {w}", 4 * i));
                }
            }
        }
        let params = ["c", "h", "k", "a", "v"].map(|p| format!("{p}{site}"));
        self.line(&format!("call (r{site}), mix, ({})", params.join(", ")));
        let d = self.wide();
        self.line(&format!("ld.param.b64 {d}, [r{site}]"));
    }

    fn block(&mut self, depth: u32, length: u64) {
        for _ in 0..length {
            match self.below(13) {
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
                2 if depth == 0 => {
                    // A loop tested at its top, 0 to 3 trips, each thread its own count.
                    let (top, end) = (self.labels, self.labels + 1);
                    self.labels += 2;
                    let a = self.reg();
                    self.line(&format!("and.b32 %r15, {a}, 3"));
                    self.text.push_str(&format!("L{top}:\n"));
                    self.line("setp.eq.s32 %p4, %r15, 0");
                    self.line(&format!("@%p4 bra L{end}"));
                    let n = 1 + self.below(6);
                    self.block(depth + 1, n);
                    self.line("sub.s32 %r15, %r15, 1");
                    self.line(&format!("bra L{top}"));
                    self.text.push_str(&format!("L{end}:\n"));
                }
                _ => self.instruction(),
            }
        }
    }
}

/// `rec(n, x) = n == 0 ? x : rec(n - 1, x + n) ^ n`, recursing behind a conditional branch.
const REC: &str = ".func (.param .b32 r) rec(.param .b32 n, .param .b32 x)\n{\n\
    \t.reg .pred %q<1>;\n\t.reg .b32 %a<6>;\n\
    \tld.param.b32 %a0, [n];\n\tld.param.b32 %a1, [x];\n\tmov.b32 %a2, %a1;\n\
    \tsetp.eq.u32 %q0, %a0, 0;\n\t@%q0 bra DONE;\n\
    \tsub.s32 %a3, %a0, 1;\n\tadd.s32 %a4, %a1, %a0;\n\
    \t{\n\t.param .b32 pn;\n\t.param .b32 px;\n\t.param .b32 pr;\n\
    \tst.param.b32 [pn], %a3;\n\tst.param.b32 [px], %a4;\n\
    \tcall (pr), rec, (pn, px);\n\tld.param.b32 %a5, [pr];\n\t}\n\
    \txor.b32 %a2, %a5, %a0;\nDONE:\n\tst.param.b32 [r], %a2;\n\tret;\n}\n\n";

/// `mix(c, h, k, a, v)`: every argument folded into a 64-bit result; `v`'s alignment is the
/// program's, read as its alignment allows.
fn mix(align: u32) -> String {
    let read = match align {
        16 => "\tld.param.v4.b32 {%b1, %b2, %b3, %b4}, [v];\n".to_string(),
        8 => {
            "\tld.param.v2.b32 {%b1, %b2}, [v];\n\tld.param.v2.b32 {%b3, %b4}, [v+8];\n".to_string()
        }
        _ => (1..=4)
            .map(|i| format!("\tld.param.b32 %b{i}, [v+{}];\n", 4 * (i - 1)))
            .collect(),
    };
    format!(
        ".func (.param .align 8 .b8 r[8]) mix(.param .b8 c, .param .b16 h, .param .b32 k, \
         .param .b64 a, .param .align {align} .b8 v[16])\n{{\n\
         \t.reg .b16 %m<2>;\n\t.reg .b32 %b<9>;\n\t.reg .b64 %e<3>;\n\
         \tld.param.u8 %m0, [c];\n\tld.param.u16 %m1, [h];\n\tld.param.b32 %b0, [k];\n\
         \tld.param.b64 %e0, [a];\n{read}\
         \tcvt.u32.u16 %b5, %m0;\n\tcvt.u32.u16 %b6, %m1;\n\
         \tmad.lo.s32 %b7, %b0, %b5, %b6;\n\txor.b32 %b7, %b7, %b1;\n\
         \tsub.s32 %b8, %b2, %b3;\n\tmul.lo.s32 %b8, %b8, %b4;\n\
         \tmov.b64 %e1, {{%b7, %b8}};\n\tadd.s64 %e2, %e0, %e1;\n\
         \tst.param.b64 [r], %e2;\n\tret;\n}}\n\n"
    )
}

/// A random kernel `(in, out, scratch)` after the functions it may call: each thread starts
/// its registers from its thread index, the input and constants, runs random code, and
/// stores every register.
pub fn program(seed: u64) -> String {
    let mut g = Gen {
        next: Box::new(xorshift(seed | 1)),
        labels: 0,
        calls: 0,
        align: 4,
        temps: 0,
        text: String::new(),
    };
    g.align = [4, 8, 16][g.below(3) as usize];
    g.text
        .push_str(".version 7.0\n.target sm_80\n.address_size 64\n\n");
    g.text.push_str(REC);
    g.text.push_str(&mix(g.align));
    g.text.push_str(
        ".visible .entry rnd(.param .u64 in, .param .u64 out, .param .u64 scratch)\n{\n\
         \t.reg .b16 %h<1>;\n\t.reg .b32 %r<17>;\n\t.reg .b64 %rd<11>;\n\t.reg .pred %p<6>;\n\
         \t.reg .b32 %s<3>;\n\t.reg .b32 %t<256>;\n\
         \t.shared .align 16 .b8 pad[48];\n\t.shared .align 16 .b8 sh[4096];\n",
    );
    g.line("ld.param.u64 %rd0, [in]");
    g.line("ld.param.u64 %rd1, [out]");
    g.line("cvta.to.global.u64 %rd0, %rd0");
    g.line("cvta.to.global.u64 %rd1, %rd1");
    g.line("mov.u32 %r0, %tid.x");
    g.line("ld.param.u64 %rd9, [scratch]");
    g.line("cvta.to.global.u64 %rd9, %rd9");
    g.line(&format!("mul.wide.u32 %rd8, %r0, {SCRATCH_BYTES}"));
    g.line("add.s64 %rd9, %rd9, %rd8");
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
    // The same in every thread.
    let bound = g.below(2 * THREADS as u64);
    g.line("mov.u32 %r16, %ntid.x");
    g.line(&format!("setp.lt.u32 %p5, %r16, {bound}"));
    g.text.push_str(&format!("\t{}\n", super::minimise::FROM));
    let n = 8 + g.below(30);
    g.block(0, n);
    // Every register to out[tid][..]: 15 words, then 4 pairs.
    g.line("mov.u32 %r16, %tid.x");
    g.line(&format!("mul.wide.u32 %rd8, %r16, {OUT_BYTES}"));
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
