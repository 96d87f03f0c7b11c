//! Random CUDA C kernels whose results the generator computes itself: unsigned variables
//! (with signed views) under arithmetic, shifts, division, comparisons, selects, 64-bit
//! products and quotients, reads of the input and of a local array at computed indices,
//! calls of a recursive function, `if`/`else` on thread-dependent conditions and loops of 0
//! to 3 trips. Each kernel stores its variables and its array; `Program::check` compares them
//! with what `Program::expected` evaluates the same statements to, thread by thread.

use super::common::{list, xorshift};

/// Kernels compiled together (one clang-16 run each batch).
pub const BATCH: usize = 16;
const THREADS: usize = 64;
const INPUT: usize = 64;
const VARS: usize = 6;
const ARRAY: usize = 8;
/// Words each thread stores: its variables, then its array.
const STORED: usize = VARS + ARRAY;

/// What the kernels share: the recursion, and the input every launch gives them.
const PRELUDE: &str = "__device__ __noinline__ unsigned rec(unsigned n, unsigned x) {\n\
    \treturn n == 0 ? x : rec(n - 1, x + n) ^ n;\n}\n\n";

fn rec(n: u32, x: u32) -> u32 {
    match n {
        0 => x,
        _ => rec(n - 1, x.wrapping_add(n)) ^ n,
    }
}

fn input() -> Vec<u32> {
    let mut next = xorshift(0xC0DA);
    (0..INPUT).map(|_| next() as u32).collect()
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Sar,
    Div,
    Rem,
    Lt,
    SignedLt,
    Eq,
    MulHi,
    Div64,
}

const OPS: [Op; 16] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Shl,
    Op::Shr,
    Op::Sar,
    Op::Div,
    Op::Rem,
    Op::Lt,
    Op::SignedLt,
    Op::Eq,
    Op::MulHi,
    Op::Div64,
];

impl Op {
    /// The C expression of `a op b`, written so that no operation is undefined.
    fn text(self, a: &str, b: &str) -> String {
        match self {
            Op::Add => format!("({a} + {b})"),
            Op::Sub => format!("({a} - {b})"),
            Op::Mul => format!("({a} * {b})"),
            Op::And => format!("({a} & {b})"),
            Op::Or => format!("({a} | {b})"),
            Op::Xor => format!("({a} ^ {b})"),
            Op::Shl => format!("({a} << ({b} & 31u))"),
            Op::Shr => format!("({a} >> ({b} & 31u))"),
            Op::Sar => format!("(unsigned)((int){a} >> ({b} & 31u))"),
            Op::Div => format!("({a} / ({b} | 1u))"),
            Op::Rem => format!("({a} % ({b} | 1u))"),
            Op::Lt => format!("(unsigned)({a} < {b})"),
            Op::SignedLt => format!("(unsigned)((int){a} < (int){b})"),
            Op::Eq => format!("(unsigned)({a} == {b})"),
            Op::MulHi => format!("(unsigned)(((unsigned long long){a} * {b}) >> 32)"),
            Op::Div64 => format!(
                "(unsigned)((((unsigned long long){a} << 32) | {b}) / ((unsigned long long){b} | 1u))"
            ),
        }
    }

    fn eval(self, a: u32, b: u32) -> u32 {
        match self {
            Op::Add => a.wrapping_add(b),
            Op::Sub => a.wrapping_sub(b),
            Op::Mul => a.wrapping_mul(b),
            Op::And => a & b,
            Op::Or => a | b,
            Op::Xor => a ^ b,
            Op::Shl => a << (b & 31),
            Op::Shr => a >> (b & 31),
            Op::Sar => ((a as i32) >> (b & 31)) as u32,
            Op::Div => a / (b | 1),
            Op::Rem => a % (b | 1),
            Op::Lt => u32::from(a < b),
            Op::SignedLt => u32::from((a as i32) < (b as i32)),
            Op::Eq => u32::from(a == b),
            Op::MulHi => ((u64::from(a) * u64::from(b)) >> 32) as u32,
            Op::Div64 => ((u64::from(a) << 32 | u64::from(b)) / (u64::from(b) | 1)) as u32,
        }
    }
}

#[derive(Clone)]
enum Expr {
    Var(usize),
    Tid,
    Const(u32),
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `c & 1 ? a : b`
    Select(Box<[Expr; 3]>),
    /// `rec(n & 3, x)`
    Rec(Box<[Expr; 2]>),
    /// `in[i & 63]`
    Input(Box<Expr>),
    /// `a[i & 7]`
    Array(Box<Expr>),
}

#[derive(Clone)]
enum Stmt {
    Assign(usize, Expr),
    Store(Expr, Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for (unsigned jN = 0; jN < (n & 3); ++jN)`, N the loop's depth.
    Loop(Expr, Vec<Stmt>),
}

/// One thread's state while [`Program::expected`] runs it.
struct Thread<'a> {
    vars: [u32; VARS],
    array: [u32; ARRAY],
    tid: u32,
    input: &'a [u32],
}

impl Thread<'_> {
    fn eval(&self, e: &Expr) -> u32 {
        match e {
            Expr::Var(v) => self.vars[*v],
            Expr::Tid => self.tid,
            Expr::Const(c) => *c,
            Expr::Bin(op, a, b) => op.eval(self.eval(a), self.eval(b)),
            Expr::Select(s) => match self.eval(&s[0]) & 1 {
                1 => self.eval(&s[1]),
                _ => self.eval(&s[2]),
            },
            Expr::Rec(r) => rec(self.eval(&r[0]) & 3, self.eval(&r[1])),
            Expr::Input(i) => self.input[self.eval(i) as usize % INPUT],
            Expr::Array(i) => self.array[self.eval(i) as usize % ARRAY],
        }
    }

    fn run(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::Assign(v, e) => self.vars[*v] = self.eval(e),
                Stmt::Store(i, e) => {
                    let at = self.eval(i) as usize % ARRAY;
                    self.array[at] = self.eval(e);
                }
                Stmt::If(c, then, other) => match self.eval(c) & 1 {
                    1 => self.run(then),
                    _ => self.run(other),
                },
                // C tests the count again after every trip (the body may change it).
                Stmt::Loop(n, body) => {
                    let mut trips = 0;
                    while trips < self.eval(n) & 3 {
                        self.run(body);
                        trips += 1;
                    }
                }
            }
        }
    }
}

/// A random kernel's statements.
#[derive(Clone)]
pub struct Program {
    body: Vec<Stmt>,
}

/// The generator's random choices.
struct Gen(Box<dyn FnMut() -> u64>);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        (self.0)() % n
    }

    fn expr(&mut self, depth: u32) -> Expr {
        let leaf = depth == 0 || self.below(3) == 0;
        match self.below(if leaf { 3 } else { 9 }) {
            0 => Expr::Var(self.below(VARS as u64) as usize),
            1 => Expr::Tid,
            2 => Expr::Const(match self.below(3) {
                0 => self.below(16) as u32,
                1 => (self.0)() as u32,
                _ => 0x8000_0000 | self.below(4) as u32,
            }),
            3 => Expr::Select(Box::new([(); 3].map(|()| self.expr(depth - 1)))),
            4 => Expr::Rec(Box::new([(); 2].map(|()| self.expr(depth - 1)))),
            5 => Expr::Input(Box::new(self.expr(depth - 1))),
            6 => Expr::Array(Box::new(self.expr(depth - 1))),
            _ => {
                let op = OPS[self.below(OPS.len() as u64) as usize];
                Expr::Bin(
                    op,
                    Box::new(self.expr(depth - 1)),
                    Box::new(self.expr(depth - 1)),
                )
            }
        }
    }

    fn stmts(&mut self, depth: u32, n: u64) -> Vec<Stmt> {
        (0..n)
            .map(|_| match self.below(10) {
                0 if depth < 2 => {
                    let c = self.expr(2);
                    let (a, b) = (1 + self.below(3), self.below(3));
                    Stmt::If(c, self.stmts(depth + 1, a), self.stmts(depth + 1, b))
                }
                1 if depth < 2 => {
                    let n = self.expr(2);
                    let k = 1 + self.below(3);
                    Stmt::Loop(n, self.stmts(depth + 1, k))
                }
                2 | 3 => Stmt::Store(self.expr(2), self.expr(3)),
                _ => Stmt::Assign(self.below(VARS as u64) as usize, self.expr(3)),
            })
            .collect()
    }
}

fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Var(v) => format!("v{v}"),
        Expr::Tid => "t".to_string(),
        Expr::Const(c) => format!("{c}u"),
        Expr::Bin(op, a, b) => op.text(&expr_text(a), &expr_text(b)),
        Expr::Select(s) => {
            let [c, a, b] = &**s;
            format!(
                "(({} & 1u) ? {} : {})",
                expr_text(c),
                expr_text(a),
                expr_text(b)
            )
        }
        Expr::Rec(r) => format!("rec({} & 3u, {})", expr_text(&r[0]), expr_text(&r[1])),
        Expr::Input(i) => format!("in[{} & 63u]", expr_text(i)),
        Expr::Array(i) => format!("a[{} & 7u]", expr_text(i)),
    }
}

fn stmts_text(out: &mut String, stmts: &[Stmt], depth: usize) {
    let pad = "\t".repeat(depth + 1);
    for s in stmts {
        match s {
            Stmt::Assign(v, e) => *out += &format!("{pad}v{v} = {};\n", expr_text(e)),
            Stmt::Store(i, e) => {
                *out += &format!("{pad}a[{} & 7u] = {};\n", expr_text(i), expr_text(e));
            }
            Stmt::If(c, then, other) => {
                *out += &format!("{pad}if ({} & 1u) {{\n", expr_text(c));
                stmts_text(out, then, depth + 1);
                *out += &format!("{pad}}} else {{\n");
                stmts_text(out, other, depth + 1);
                *out += &format!("{pad}}}\n");
            }
            Stmt::Loop(n, body) => {
                let j = format!("j{depth}");
                *out += &format!(
                    "{pad}for (unsigned {j} = 0; {j} < ({} & 3u); ++{j}) {{\n",
                    expr_text(n)
                );
                stmts_text(out, body, depth + 1);
                *out += &format!("{pad}}}\n");
            }
        }
    }
}

impl Program {
    pub fn new(seed: u64) -> Program {
        let mut g = Gen(Box::new(xorshift(seed | 1)));
        let n = 6 + g.below(16);
        Program {
            body: g.stmts(0, n),
        }
    }

    /// The kernel `k<index>` in CUDA C: variables and array start from the thread's index and
    /// the input, run the statements, and are stored.
    pub fn text(&self, index: usize) -> String {
        let mut s = format!(
            "extern \"C\" __global__ void k{index}(const unsigned *in, unsigned *out) {{\n\
             \tunsigned t = threadIdx.x;\n"
        );
        for v in 0..VARS {
            s += &format!("\tunsigned v{v} = in[(t + {}u) & 63u];\n", 7 * v);
        }
        s += &format!(
            "\tunsigned a[{ARRAY}];\n\tfor (int i = 0; i < {ARRAY}; ++i) a[i] = t * (i + 1);\n"
        );
        stmts_text(&mut s, &self.body, 0);
        for v in 0..VARS {
            s += &format!("\tout[t * {STORED}u + {v}u] = v{v};\n");
        }
        s += &format!(
            "\tfor (int i = 0; i < {ARRAY}; ++i) out[t * {STORED}u + {VARS}u + i] = a[i];\n}}\n\n"
        );
        s
    }

    /// What each thread stores, as the statements say.
    fn expected(&self, input: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(THREADS * STORED);
        for t in 0..THREADS as u32 {
            let mut thread = Thread {
                vars: std::array::from_fn(|v| input[(t as usize + 7 * v) % INPUT]),
                array: std::array::from_fn(|i| t.wrapping_mul(i as u32 + 1)),
                tid: t,
                input,
            };
            thread.run(&self.body);
            out.extend(thread.vars);
            out.extend(thread.array);
        }
        out
    }

    /// The launch of kernel `k<index>`.
    pub fn manifest(&self, index: usize) -> String {
        format!(
            "kernel = \"k{index}\"\nblock = [{THREADS}]\n\
             params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
            list(input()),
            4 * THREADS * STORED
        )
    }

    /// Whether `out` holds what the statements compute.
    pub fn check(&self, out: &[u32]) -> Result<(), String> {
        let want = self.expected(&input());
        match out.iter().zip(&want).position(|(a, b)| a != b) {
            None => Ok(()),
            Some(i) => Err(format!(
                "thread {} word {} is {:#x}, not {:#x}",
                i / STORED,
                i % STORED,
                out[i],
                want[i]
            )),
        }
    }
}

impl Program {
    /// The program with statements removed, or an `if` or a loop replaced by its body, for
    /// as long as `fails` holds: the statements a failure needs.
    pub fn shrink(self, fails: impl Fn(&Program) -> bool) -> Program {
        let mut p = self;
        let mut from = 0;
        loop {
            let candidates = variants(&p.body);
            let found = (from..candidates.len()).find(|&i| {
                fails(&Program {
                    body: candidates[i].clone(),
                })
            });
            match found {
                Some(i) => {
                    p.body = candidates[i].clone();
                    from = i;
                }
                None => return p,
            }
        }
    }
}

/// Every list one step smaller than `stmts`: a statement removed, or an `if` or loop
/// replaced by its body (an `if` by either branch), at any depth.
fn variants(stmts: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        let with = |middle: Vec<Stmt>| {
            let mut v = stmts[..i].to_vec();
            v.extend(middle);
            v.extend_from_slice(&stmts[i + 1..]);
            v
        };
        out.push(with(Vec::new()));
        match s {
            Stmt::If(c, then, other) => {
                out.push(with(then.clone()));
                out.push(with(other.clone()));
                for t in variants(then) {
                    out.push(with(vec![Stmt::If(c.clone(), t, other.clone())]));
                }
                for o in variants(other) {
                    out.push(with(vec![Stmt::If(c.clone(), then.clone(), o)]));
                }
            }
            Stmt::Loop(n, body) => {
                out.push(with(body.clone()));
                for b in variants(body) {
                    out.push(with(vec![Stmt::Loop(n.clone(), b)]));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn shrinking_keeps_the_statements_a_failure_needs() {
    let program = Program::new(7);
    // "Fails" while some statement stores to the array.
    let stores = |p: &Program| p.text(0).matches("\ta[").count();
    assert!(stores(&program) > 0);
    let small = program.shrink(|p| stores(p) > 0);
    assert_eq!(stores(&small), 1);
    assert_eq!(small.body.len(), 1, "one statement is left");
}

/// `programs` as kernels `k0..` of one module, compiled by clang-16 (`ptxas-rs cuda`'s
/// compile): the PTX.
pub fn compile(programs: &[&Program]) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut text = PRELUDE.to_string();
    for (k, p) in programs.iter().enumerate() {
        text += &p.text(k);
    }
    let (cu, ptx) = (dir.path().join("random.cu"), dir.path().join("random.ptx"));
    std::fs::write(&cu, &text).unwrap();
    let compiled = ptxas_rs::cuda::compile(&cu, &ptx, dir.path()).expect("clang-16 runs");
    assert!(compiled, "clang-16 refused:\n{text}");
    std::fs::read_to_string(&ptx).unwrap()
}
