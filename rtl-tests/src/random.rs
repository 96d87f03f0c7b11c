//! Random but valid sgpu programs for the co-simulation (in the manner of riscv-dv and
//! Nyuzi's generator): a kernel of random instructions from a chosen mix (integer ALU,
//! video ALU, the f32 unit's instructions the core has, multiply and divide, loads and stores of every space and width, generic
//! addressing, constant bank 1, global and shared atomics, surface loads, stores,
//! reductions and queries, branches that diverge and reconverge, nested up to deep
//! reconvergence stacks, loops of per-lane trip counts, calls with returns under
//! divergence, barriers plain, counted, arrive-only and reducing, exits under divergence
//! and of whole warps while others wait, WARPSYNC), run on the core and the golden model in
//! lock-step, on CTAs of one, two and three dimensions. A seed gives the same program every
//! time; every failure found is kept as a regression seed in tests/cosim_random.rs.
//!
//! Registers: sixteen consecutive registers hold data (every ALU operand and result), from a
//! base the seed picks (R0, R40, R100 or R239, so that R254 is used too); R20 the thread's
//! index in its CTA, R21 a scratch register, R22:R23 the thread's slot of the global buffer,
//! R24:R25 the buffer's start (where the global atomics go, all threads at one address), R26
//! the thread's shared slot, R27 a loop count, R28 to R30 function addresses for CALLR, R16
//! and R17 a surface access's coordinates, R18:R19 the surface's handle, R31 the shared
//! word every thread's shared atomics go to, R32:R33 and R34:R35 the generic addresses of the
//! thread's shared slot and of its frame. Four of P0 to P6, in an order the seed picks, are
//! data (the last the loops'), and one other the scratch of warp-uniform conditions. Each
//! thread owns 128 bytes of the buffer: the first 64 for its loads and stores, the last 64
//! for its registers at the end, so that the final memory holds every thread's result. The
//! launch binds one 2d surface of 8 x 4 elements of a random format (of 4, 8 or 16 bytes an
//! element, so that every access placed at a multiple of its size is aligned) and random
//! contents, at slot 0, and 64 bytes of random constants in bank 1.

use sgpu_isa::{
    decode, fields, set_field, Aop, Aty, Bmode, Cop, Dsize, Field, Geom, Icmp, Instruction, Lop2,
    Msize, Op, Pred, PredSrc, Query, Reg, RegOrImm, Sclamp, Sop, Space, Sreg, Sty, Surface, Unit,
    Vwidth, INSTRUCTIONS,
};
use sgpu_sim::launch::Prepared;
use sgpu_sim::memory::Global;
use sgpu_sim::program::{decode_all, Function, Program};
use sgpu_sim::surface::{
    data_registers, reduce_bytes, vector_bytes, Binding, Descriptor, Format, Surfaces,
};

/// What a program is made of: weights of each kind of statement.
#[derive(Clone, Copy, Debug)]
pub struct Mix {
    pub alu: u32,
    pub video: u32,
    pub float: u32,
    pub sfu: u32,
    pub warp: u32,
    pub divide: u32,
    pub memory: u32,
    pub atomic: u32,
    pub surface: u32,
    pub branch: u32,
    pub call: u32,
    pub barrier: u32,
    pub constant: u32,
    pub exit: u32,
    pub warpsync: u32,
}

impl Mix {
    /// A bit of everything.
    pub const ALL: Mix = Mix {
        alu: 40,
        video: 8,
        float: 10,
        sfu: 3,
        warp: 4,
        divide: 3,
        memory: 15,
        atomic: 5,
        surface: 6,
        branch: 8,
        call: 3,
        barrier: 3,
        constant: 2,
        exit: 1,
        warpsync: 1,
    };
}

/// The thread slot's bytes, and those of its loads and stores.
const SLOT: u32 = 128;
const DATA: i32 = 64;
/// Local bytes of the kernel's frame, and of the called function's.
const FRAME: u32 = 64;
/// Bytes of constant bank 1.
const CONSTANTS: u32 = 64;
/// The registers with fixed roles (the module's documentation): R16 to R35.
const SCRATCH: Reg = Reg(21);
const SHARED_ATOMIC: Reg = Reg(31);
const GENERIC_SHARED: Reg = Reg(32);
const GENERIC_LOCAL: Reg = Reg(34);

/// Where a program keeps its data: sixteen registers from `base`, and four predicates
/// (`preds[3]` the loops'), with `spare` for warp-uniform conditions.
#[derive(Clone, Copy)]
struct Regs {
    base: u32,
    preds: [u8; 4],
    spare: Pred,
}

impl Regs {
    fn pick(rng: &mut Rng) -> Regs {
        const BASES: [u32; 4] = [0, 40, 100, 239];
        let base = BASES[rng.below(4) as usize];
        let mut order: Vec<u8> = (0..7).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u32 + 1) as usize);
        }
        Regs {
            base,
            preds: [order[0], order[1], order[2], order[3]],
            spare: Pred(order[4]),
        }
    }

    /// Data register `k` (0 to 15).
    fn data(&self, k: u32) -> Reg {
        r(self.base + k)
    }

    /// Data predicate `k` (0 to 3).
    fn pred(&self, k: u32) -> Pred {
        Pred(self.preds[k as usize])
    }
}

/// The CTA's shape and the grid's: every dimension used, two CTAs.
#[derive(Clone, Copy)]
struct Shape {
    block: [u32; 3],
    grid: [u32; 3],
}

impl Shape {
    /// Up to `warps` warps of threads, in one to three dimensions, the last warp partial now
    /// and then.
    fn pick(rng: &mut Rng, warps: u32) -> Shape {
        let most = warps * 32;
        let block = match rng.below(3) {
            0 => {
                let partial = if rng.chance(30) { rng.below(31) + 1 } else { 0 };
                [(most - partial).max(1), 1, 1]
            }
            1 => {
                let x = 1 + rng.below(16);
                [x, (1 + rng.below(most / x)).min(most / x), 1]
            }
            _ => {
                let x = 1 + rng.below(8);
                let y = 1 + rng.below(4);
                [x, y, (1 + rng.below(most / (x * y))).clamp(1, 64)]
            }
        };
        let mut grid = [1, 1, 1];
        grid[rng.below(3) as usize] = 2;
        Shape { block, grid }
    }

    fn threads(&self) -> u32 {
        self.block.iter().product()
    }

    /// The CTA's warps, the last one partial or not.
    fn warps(&self) -> u32 {
        self.threads().div_ceil(32)
    }
}

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn word(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (self.word() % u64::from(n.max(1))) as u32
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    /// A register value: edge values half the time, integers' and f32's (1.0, the smallest
    /// subnormal and normal, the largest normal, infinity, a signalling and a quiet NaN).
    fn value(&mut self) -> u32 {
        // Integer, lane-number and f32 edges, then pairs of f16 edges (one, infinity, the
        // smallest and largest subnormals, the largest finite).
        const EDGES: [u32; 22] = [
            0,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            31,
            32,
            0x3f80_0000,
            0x3f00_0000,
            0x4b00_0000,
            0x0080_0000,
            0x007f_ffff,
            0x7f7f_ffff,
            0x7f80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0xbf80_0000,
            0x3c00_3c00,
            0x7c00_0001,
            0x7bff_03ff,
            0xfc00_8000,
        ];
        if self.chance(50) {
            EDGES[self.below(EDGES.len() as u32) as usize]
        } else {
            self.word() as u32
        }
    }
}

/// A label of the program being built.
#[derive(Clone, Copy)]
struct Label(usize);

/// Instructions with branch targets still to fill.
#[derive(Default)]
struct Builder {
    code: Vec<Instruction>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
}

impl Builder {
    fn emit(&mut self, op: Op) {
        self.code.push(Instruction::new(op));
    }

    fn guarded(&mut self, guard: PredSrc, op: Op) {
        self.code.push(Instruction { guard, op });
    }

    fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    fn place(&mut self, l: Label) {
        self.labels[l.0] = Some(self.code.len());
    }

    /// An instruction whose `target` is `l`, filled in `finish`.
    fn to(&mut self, guard: PredSrc, op: Op, l: Label) {
        self.fixups.push((self.code.len(), l));
        self.guarded(guard, op);
    }

    fn finish(mut self) -> Vec<u64> {
        for &(at, l) in &self.fixups {
            let dest = self.labels[l.0].expect("every label placed") as i64;
            let t = ((dest - at as i64 - 1) * 8) as i32;
            match &mut self.code[at].op {
                Op::Bra { target, .. } | Op::Ssy { target } | Op::Call { target, .. } => {
                    *target = t
                }
                // A function's address, for CALLR: its first word's byte address.
                Op::Mov32i { imm32, .. } => *imm32 = (dest * 8) as u32,
                _ => unreachable!("only branches, SSY, calls and addresses have targets"),
            }
        }
        self.code
            .iter()
            .map(|i| {
                i.encode()
                    .expect("the generator makes encodable instructions")
            })
            .collect()
    }
}

fn r(n: u32) -> Reg {
    Reg(n as u8)
}

const ALWAYS: PredSrc = PredSrc::ALWAYS;

/// A random program and its launch.
pub struct Generated {
    pub program: Program,
    pub prepared: Prepared,
}

/// The program of `seed`: `length` statements of `mix` in a kernel of at most `warps` warps
/// a CTA, two CTAs.
pub fn generate(seed: u64, mix: Mix, length: u32, warps: u32) -> Generated {
    let mut rng = Rng::new(seed);
    let shape = Shape::pick(&mut rng, warps);
    let regs = Regs::pick(&mut rng);
    let mut b = Builder::default();
    let callee = [b.label(), b.label()];
    prologue(&mut b, &mut rng, &regs, &shape);
    let max_depth = if rng.chance(20) { 12 } else { 3 };
    let mut g = Gen {
        rng: &mut rng,
        b: &mut b,
        mix,
        callee,
        depth: 0,
        max_depth,
        regs,
        warps: shape.warps(),
        next_arrive: ARRIVE_FIRST,
    };
    g.statements(length, true);
    epilogue(&mut b, &regs);
    for f in callee {
        b.place(f);
        function(&mut b, &mut rng, &regs);
    }
    let code = b.finish();
    let format = SURFACE_FORMATS[rng.below(SURFACE_FORMATS.len() as u32) as usize];
    let contents = (0..SURFACE_W * SURFACE_H * 16)
        .map(|_| rng.word() as u8)
        .collect();
    let constants = (0..CONSTANTS).map(|_| rng.word() as u8).collect();
    launch(code, shape, format, contents, constants)
}

/// What [`single`] puts between its prologue and epilogue.
#[derive(Clone, Copy, Debug)]
pub enum Single {
    /// A random instruction of this unit on the data registers (as the mixes draw them),
    /// run by every lane (guard PT).
    Unit(Unit),
    /// This instruction as it is.
    Insn(Instruction),
}

/// One instruction between the generator's prologue and epilogue, in two CTAs of one full
/// warp: `seed` draws the program's shape and the instruction, `values` alone the values of
/// the data registers and so of the predicates made from them (a fixed sequence of moves
/// and comparisons after the prologue), so that two programs differing only in `values`
/// run the same instructions on different operands. For the tests of single instructions:
/// that the core runs every opcode, and that a fixed-latency one takes the same cycles
/// whatever its operands. Returns the program, its launch, and the instruction.
pub fn single(seed: u64, values: u64, what: Single) -> (Generated, Instruction) {
    let mut rng = Rng::new(seed);
    let shape = Shape {
        block: [32, 1, 1],
        grid: [2, 1, 1],
    };
    let regs = Regs::pick(&mut rng);
    let mut b = Builder::default();
    prologue(&mut b, &mut rng, &regs, &shape);
    let mut operands = Rng::new(values);
    for k in 0..16 {
        b.emit(Op::Mov32i {
            rd: regs.data(k),
            imm32: operands.value(),
        });
    }
    for p in 0..4 {
        b.emit(isetp(
            regs.pred(p),
            regs.data(p),
            RegOrImm::Reg(r(20)),
            Icmp::Gt,
            false,
        ));
    }
    let insn = match what {
        Single::Unit(unit) => Instruction {
            guard: ALWAYS,
            ..compute(&mut rng, unit, &regs)
        },
        Single::Insn(i) => i,
    };
    b.code.push(insn);
    epilogue(&mut b, &regs);
    let contents = (0..SURFACE_W * SURFACE_H * 16)
        .map(|_| rng.word() as u8)
        .collect();
    let constants = (0..CONSTANTS).map(|_| rng.word() as u8).collect();
    (
        launch(b.finish(), shape, "r32_uint", contents, constants),
        insn,
    )
}

/// The surface's formats: 4, 8 or 16 bytes an element, of every kind.
const SURFACE_FORMATS: [&str; 15] = [
    "r32_uint",
    "r32_sint",
    "r32_float",
    "rg16_uint",
    "rg16_snorm",
    "rg16_float",
    "rgba8_unorm",
    "rgba8_snorm",
    "rgba8_sint",
    "rg32_uint",
    "rg32_float",
    "rgba16_sint",
    "rgba16_unorm",
    "rgba32_uint",
    "rgba32_float",
];
const SURFACE_W: u32 = 8;
const SURFACE_H: u32 = 4;

/// The thread index, the slots and addresses, and random register and predicate values that
/// differ by lane.
fn prologue(b: &mut Builder, rng: &mut Rng, regs: &Regs, shape: &Shape) {
    // The thread's index in its CTA into R20 and the CTA's in the grid into R21, x fastest.
    use Sreg::*;
    linear(b, r(20), [TidX, TidY, TidZ], [NtidX, NtidY]);
    linear(b, r(21), [CtaidX, CtaidY, CtaidZ], [NctaidX, NctaidY]);
    // The buffer's start (parameter 0, 8 bytes) and this thread's slot in it: CTA k's
    // threads follow CTA k - 1's.
    b.emit(Op::Ldc {
        rd: r(24),
        cbank: 0,
        ra: Reg::RZ,
        off24: 0,
        msize: Msize::B64,
    });
    let threads = shape.threads();
    b.emit(Op::Mov32i {
        rd: r(27),
        imm32: threads,
    });
    b.emit(imad(r(21), r(21), r(27), r(20)));
    b.emit(Op::Mov32i {
        rd: r(27),
        imm32: SLOT,
    });
    b.emit(Op::Imadw {
        rd: r(22),
        ra: r(21),
        rb: RegOrImm::Reg(r(27)),
        rc: r(24),
        sgn: false,
    });
    b.emit(Op::Shl {
        rd: r(26),
        ra: r(20),
        rb: RegOrImm::Imm(6),
    });
    // The shared atomics' word, after every thread's slot.
    b.emit(Op::Mov32i {
        rd: SHARED_ATOMIC,
        imm32: threads * 64,
    });
    // Generic addresses: the shared slot's in its window, the frame's (absolute) in the
    // local window.
    b.emit(Op::S2r {
        rd: r(27),
        sreg: Frame,
    });
    for (at, window, offset) in [
        (GENERIC_SHARED, SharedWindow, r(26)),
        (GENERIC_LOCAL, LocalWindow, r(27)),
    ] {
        b.emit(Op::S2r {
            rd: at,
            sreg: window,
        });
        b.emit(Op::Iadd {
            rd: at,
            ra: at,
            rb: RegOrImm::Reg(offset),
            nb: false,
            cc: false,
            x: false,
            sat: false,
        });
        b.emit(Op::Mov32i {
            rd: r(u32::from(at.0) + 1),
            imm32: 0,
        });
    }
    for k in 0..16 {
        if rng.chance(50) {
            b.emit(Op::Mov32i {
                rd: regs.data(k),
                imm32: rng.value(),
            });
        } else {
            b.emit(Op::Iadd32i {
                rd: regs.data(k),
                ra: r(20),
                imm32: rng.value(),
            });
        }
    }
    // The surface's handle, for the accesses that name it by register.
    for k in [18, 19] {
        b.emit(Op::Mov32i { rd: r(k), imm32: 0 });
    }
    for p in 0..4 {
        let p_gt_tid = isetp(
            regs.pred(p),
            regs.data(p),
            RegOrImm::Reg(r(20)),
            Icmp::Gt,
            false,
        );
        b.emit(p_gt_tid);
    }
}

/// `rd = (v[2] * n[1] + v[1]) * n[0] + v[0]` of special registers: an index made linear, x
/// fastest. Uses R26 and R27.
fn linear(b: &mut Builder, rd: Reg, v: [Sreg; 3], n: [Sreg; 2]) {
    b.emit(Op::S2r { rd, sreg: v[2] });
    for k in [1, 0] {
        b.emit(Op::S2r {
            rd: r(26),
            sreg: n[k],
        });
        b.emit(Op::S2r {
            rd: r(27),
            sreg: v[k],
        });
        b.emit(imad(rd, rd, r(26), r(27)));
    }
}

/// `pd = ra icmp rb` (signed with `sgn`), PT for the second result.
fn isetp(pd: Pred, ra: Reg, rb: RegOrImm, icmp: Icmp, sgn: bool) -> Op {
    Op::Isetp {
        pd,
        pq: Pred::PT,
        ra,
        rb,
        pc: ALWAYS,
        icmp,
        sgn,
        x: false,
        bop: sgpu_isa::Bop::And,
    }
}

/// `rd = ra * rb + rc`, 32 bits.
fn imad(rd: Reg, ra: Reg, rb: Reg, rc: Reg) -> Op {
    Op::Imad {
        rd,
        ra,
        rb: RegOrImm::Reg(rb),
        rc: RegOrImm::Reg(rc),
        hi: false,
        sgn: false,
        cc: false,
        x: false,
    }
}

/// Every data register to the thread's slot, then the end.
fn epilogue(b: &mut Builder, regs: &Regs) {
    for k in 0..4 {
        b.emit(Op::St {
            ra: r(22),
            off24: DATA + 16 * k,
            rd: regs.data(4 * k as u32),
            space: Space::Global,
            msize: Msize::B128,
            cop: Cop::Default,
            e: true,
            labs: false,
        });
    }
    b.emit(Op::Exit);
}

/// The called function: a few ALU instructions, a store to and load from its own frame, and
/// the return, with now and then a return by some lanes on the way.
fn function(b: &mut Builder, rng: &mut Rng, regs: &Regs) {
    for n in 0..4 {
        if n == 2 && rng.chance(50) {
            let p = regs.pred(rng.below(4));
            let negated = rng.chance(50);
            b.guarded(PredSrc { pred: p, negated }, Op::Ret);
        }
        let i = compute(rng, Unit::Int, regs);
        b.code.push(i);
    }
    let k = regs.data(rng.below(16));
    b.emit(Op::St {
        ra: Reg::RZ,
        off24: 8,
        rd: k,
        space: Space::Local,
        msize: Msize::B32,
        cop: Cop::Default,
        e: false,
        labs: false,
    });
    b.emit(Op::Ld {
        rd: regs.data(rng.below(16)),
        ra: Reg::RZ,
        off24: 8,
        space: Space::Local,
        msize: Msize::B32,
        cop: Cop::Default,
        e: false,
        labs: false,
    });
    b.emit(Op::Ret);
}

/// The program loaded as the model loads an ELF, and its launch: two CTAs of `shape`, one
/// buffer, one surface of `format` holding `contents` at slot 0, `constants` in bank 1.
fn launch(
    code: Vec<u64>,
    shape: Shape,
    format: &str,
    contents: Vec<u8>,
    constants: Vec<u8>,
) -> Generated {
    let threads = shape.threads();
    let info = sgpu_isa::elf::Info {
        entry: true,
        local_bytes: FRAME,
        // Every thread's slot, and the shared atomics' 16 bytes.
        shared_bytes: threads * 64 + 16,
        param_bytes: 8,
        params: vec![(0, 8)],
        ..Default::default()
    };
    let len = code.len() as u32;
    let program = Program {
        decoded: decode_all(&code),
        lines: vec![[0, 0, 0]; code.len()],
        files: [(0, "random".to_string())].into(),
        code,
        functions: vec![Function {
            name: "random".into(),
            start: 0,
            len,
            info,
        }],
        constants,
        ..Program::default()
    };
    let mut global = Global::default();
    let bytes = (2 * threads * SLOT) as usize; // two CTAs
    let base = global.alloc("out", Vec::new(), bytes);
    let surfaces = surface(&mut global, format, contents);
    let prepared = Prepared {
        launch: sgpu_sim::Launch {
            kernel: "random".into(),
            grid: shape.grid,
            block: shape.block,
            shared: 0,
            params: base.to_le_bytes().to_vec(),
            max_instructions: 1 << 24,
            interrupt: None,
        },
        global,
        surfaces,
        elements: Vec::new(),
    };
    Generated { program, prepared }
}

/// The surface in global memory and its descriptor table, as the launch manifest's host
/// lays them out.
fn surface(global: &mut Global, format: &str, mut contents: Vec<u8>) -> Surfaces {
    let format = Format::parse(format).expect("a format of SURFACE_FORMATS");
    let d = Descriptor::packed(0, Geom::D2, [SURFACE_W, SURFACE_H, 1, 1], format)
        .expect("a small surface");
    contents.truncate(d.bytes() as usize);
    let data = global.alloc("s", contents, d.bytes() as usize);
    let d = Descriptor { base: data, ..d };
    let words = d.words().expect("a small surface");
    let table = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Surfaces {
        table: global.alloc("(surface descriptors)", table, 4 * words.len()),
        bound: vec![Some(Binding {
            name: "s".into(),
            data,
        })],
    }
}

/// A random instruction of the integer ALU (`unit` Int), the video ALU (Video), the f32
/// unit (Float: arithmetic, comparisons, conversions, division), the special function unit
/// (Sfu) or the warp unit (Warp: SHFL, VOTE, REDUX, MATCH, whose member masks are then random
/// too) on the data registers and predicates: random bits in every field it uses, then its
/// registers and predicates moved into the data ones.
fn compute(rng: &mut Rng, unit: Unit, regs: &Regs) -> Instruction {
    let ops: Vec<(u8, u64)> = INSTRUCTIONS
        .iter()
        .filter_map(|&(_, op, used)| {
            let i = decode(u64::from(op) | 0x0000_0000_0000_0700).ok()?;
            (i.op.unit() == unit && !matches!(i.op, Op::S2r { .. } | Op::Idiv { .. }))
                .then_some((op, used))
        })
        .collect();
    loop {
        let (op, used) = ops[rng.below(ops.len() as u32) as usize];
        let mut word = rng.word() & used & !0xff | u64::from(op);
        let reg_fields: [Field; 4] = [fields::RD, fields::RA, fields::RB, fields::RC];
        let pred_fields: [Field; 4] = [fields::PD, fields::PQ, fields::PA, fields::PC];
        let in_use = |f: Field| used & f.mask() == f.mask();
        for f in reg_fields {
            if in_use(f) {
                let v = if rng.chance(5) {
                    255
                } else {
                    regs.base + rng.below(16)
                };
                let _ = set_field(&mut word, f, i64::from(v));
            }
        }
        let pred = |rng: &mut Rng, always: u32| {
            let v = if rng.chance(always) {
                7
            } else {
                regs.pred(rng.below(4)).0
            };
            i64::from(v)
        };
        for f in pred_fields {
            if in_use(f) {
                let v = pred(rng, 20);
                let _ = set_field(&mut word, f, v);
            }
        }
        let guard = pred(rng, 80);
        let _ = set_field(&mut word, fields::PG, guard);
        let Ok(i) = decode(word) else { continue };
        let roles = i.op.roles();
        let data = regs.base..regs.base + 16;
        let fits = roles.regs.iter().flatten().all(|r| {
            let first = u32::from(r.first.0);
            r.first == Reg::RZ || data.contains(&first) && first + u32::from(r.count) <= data.end
        });
        if fits {
            return i;
        }
    }
}

/// Load and store widths: the `msize` and its bytes.
const SIZES: [(Msize, u32); 7] = [
    (Msize::U8, 1),
    (Msize::S8, 1),
    (Msize::U16, 2),
    (Msize::S16, 2),
    (Msize::B32, 4),
    (Msize::B64, 8),
    (Msize::B128, 16),
];

/// The statement generator.
struct Gen<'g> {
    rng: &'g mut Rng,
    b: &'g mut Builder,
    mix: Mix,
    /// Two functions: CALL calls the first, CALLR either, lane by lane.
    callee: [Label; 2],
    depth: u32,
    /// How deep branches and loops nest: 3, or 12 for deep reconvergence stacks.
    max_depth: u32,
    regs: Regs,
    /// The CTA's warps.
    warps: u32,
    /// The barrier of the next arrive-only barrier statement: each has its own, so that a
    /// warp that only arrives never arrives twice before the barrier completes.
    next_arrive: u8,
}

/// Barriers: 0 plain, 1 reducing, 2 counted, and from 3 on the arrive-only statements'.
const COUNTED: u8 = 2;
const ARRIVE_FIRST: u8 = 3;

impl Gen<'_> {
    /// `n` statements; `top`: not inside a branch or loop (where barriers may go).
    fn statements(&mut self, n: u32, top: bool) {
        for _ in 0..n {
            self.statement(top);
        }
    }

    fn statement(&mut self, top: bool) {
        let m = self.mix;
        let weights = [
            m.alu,
            m.video,
            m.float,
            m.sfu,
            m.warp,
            m.divide,
            m.memory,
            m.atomic,
            m.surface,
            if self.depth < self.max_depth {
                m.branch
            } else {
                0
            },
            m.call,
            if top { m.barrier } else { 0 },
            m.constant,
            m.exit,
            if top { m.warpsync } else { 0 },
        ];
        let total: u32 = weights.iter().sum();
        let mut pick = self.rng.below(total);
        let kind = weights
            .iter()
            .position(|&w| {
                let hit = pick < w;
                pick = pick.saturating_sub(w);
                hit
            })
            .unwrap_or(0);
        match kind {
            0..=4 => {
                let unit = [Unit::Int, Unit::Video, Unit::Float, Unit::Sfu, Unit::Warp][kind];
                let i = compute(self.rng, unit, &self.regs);
                self.b.code.push(i);
            }
            5 => self.divide(),
            6 => self.memory(),
            7 => self.atomic(),
            8 => self.surface(),
            9 => {
                if self.max_depth > 3 && self.depth == 0 && self.rng.chance(30) {
                    let inner = 3 + self.rng.below(self.max_depth - 3);
                    self.if_else(inner)
                } else if self.rng.chance(50) {
                    self.if_else(0)
                } else {
                    self.r#loop()
                }
            }
            10 => self.call(),
            11 => self.barrier(),
            12 => self.constant(),
            13 => self.exit(top),
            _ => self.warpsync(),
        }
    }

    /// A barrier of the whole CTA: plain, counted (every warp's threads), arrive-only for
    /// the first warp while the others wait, or reducing a predicate into a data register
    /// (POPC) or predicate (AND, OR) of every warp.
    fn barrier(&mut self) {
        match self.rng.below(6) {
            0 | 1 => {
                self.b.emit(Op::Bar {
                    rb: RegOrImm::Imm(0),
                    rc: Reg::RZ,
                    bmode: Bmode::Sync,
                });
                return;
            }
            2 => return self.counted(COUNTED, Bmode::Sync, ALWAYS),
            3 if self.warps > 1 && u64::from(self.next_arrive) < sgpu_isa::abi::BARRIERS => {
                let id = self.next_arrive;
                self.next_arrive += 1;
                let first = self.warp_test(Icmp::Lt, 32);
                self.counted(id, Bmode::Arrive, first);
                let rest = PredSrc {
                    negated: true,
                    ..first
                };
                return self.counted(id, Bmode::Sync, rest);
            }
            _ => {}
        }
        let op = Op::Barred {
            rd: self.data(),
            pd: self.regs.pred(self.rng.below(4)),
            rb: RegOrImm::Imm(1),
            rc: Reg::RZ,
            pc: self.guard_pred(),
            bred: sgpu_isa::Bred::ALL[self.rng.below(3) as usize],
        };
        self.b.emit(op);
    }

    /// `BAR` of barrier `id` counting every warp's threads (`bmode`), under `guard`.
    fn counted(&mut self, id: u8, bmode: Bmode, guard: PredSrc) {
        self.b.emit(Op::Mov32i {
            rd: SCRATCH,
            imm32: self.warps * 32,
        });
        let op = Op::Bar {
            rb: RegOrImm::Imm(id),
            rc: SCRATCH,
            bmode,
        };
        self.b.guarded(guard, op);
    }

    /// The spare predicate set to `tid icmp threads` of the thread's index in its CTA (the
    /// same for a warp's lanes, `threads` being a multiple of 32), as a guard.
    fn warp_test(&mut self, icmp: Icmp, threads: u32) -> PredSrc {
        let threads = u8::try_from(threads).expect("at most eight warps a CTA");
        let op = isetp(self.regs.spare, r(20), RegOrImm::Imm(threads), icmp, false);
        self.b.emit(op);
        PredSrc {
            pred: self.regs.spare,
            negated: false,
        }
    }

    /// An exit: of the lanes a data predicate picks (under divergence when nested), or at
    /// the top of the whole of the CTA's last warp, while the others may wait at a barrier.
    fn exit(&mut self, top: bool) {
        if top && self.warps > 1 && self.rng.chance(50) {
            let last = self.warp_test(Icmp::Ge, (self.warps - 1) * 32);
            return self.b.guarded(last, Op::Exit);
        }
        let p = PredSrc {
            pred: self.regs.pred(self.rng.below(4)),
            negated: self.rng.chance(50),
        };
        self.b.guarded(p, Op::Exit);
    }

    /// WARPSYNC of the whole warp, where the warp is converged: by immediate or register.
    fn warpsync(&mut self) {
        if self.rng.chance(50) {
            return self.b.emit(Op::Warpsynci { imm32: u32::MAX });
        }
        self.b.emit(Op::Mov32i {
            rd: SCRATCH,
            imm32: u32::MAX,
        });
        self.b.emit(Op::Warpsync { ra: SCRATCH });
    }

    /// A load of constant bank 1 at a random offset, of a random width.
    fn constant(&mut self) {
        let (msize, bytes) = SIZES[self.rng.below(SIZES.len() as u32) as usize];
        let off = (self.rng.below(CONSTANTS / bytes) * bytes) as i32;
        let op = Op::Ldc {
            rd: self.tuple(bytes.div_ceil(4)),
            cbank: 1,
            ra: Reg::RZ,
            off24: off,
            msize,
        };
        let g = self.guard();
        self.b.guarded(g, op);
    }

    fn data(&mut self) -> Reg {
        self.regs.data(self.rng.below(16))
    }

    /// A data register starting a tuple of `n`, aligned as the hardware wants none.
    fn tuple(&mut self, n: u32) -> Reg {
        self.regs.data(self.rng.below(17 - n))
    }

    fn guard(&mut self) -> PredSrc {
        if self.rng.chance(75) {
            ALWAYS
        } else {
            PredSrc {
                pred: self.regs.pred(self.rng.below(4)),
                negated: self.rng.chance(50),
            }
        }
    }

    fn divide(&mut self) {
        let w64 = self.rng.chance(40);
        let n = if w64 { 2 } else { 1 };
        let op = Op::Idiv {
            rd: self.tuple(n),
            ra: self.tuple(n),
            rb: self.tuple(n),
            sgn: self.rng.chance(50),
            rem: self.rng.chance(50),
            w64,
        };
        let g = self.guard();
        self.b.guarded(g, op);
    }

    /// A load or store of a random width in the thread's global slot, its shared slot or
    /// its frame, by the space's address or a generic one (64 bits for global memory, 32
    /// or 64 for the windows).
    fn memory(&mut self) {
        let (msize, bytes) = SIZES[self.rng.below(SIZES.len() as u32) as usize];
        let off = (self.rng.below(64 / bytes) * bytes) as i32;
        let wide = self.rng.chance(50);
        let (ra, space, e) = match self.rng.below(6) {
            0 => (r(22), Space::Global, true),
            1 => (r(26), Space::Shared, false),
            2 => (Reg::RZ, Space::Local, false),
            3 => (r(22), Space::Generic, true),
            4 => (GENERIC_SHARED, Space::Generic, wide),
            _ => (GENERIC_LOCAL, Space::Generic, wide),
        };
        let regs = bytes.div_ceil(4);
        let rd = self.tuple(regs);
        let (cop, labs) = (Cop::Default, false);
        let op = if self.rng.chance(50) {
            Op::Ld {
                rd,
                ra,
                off24: off,
                space,
                msize,
                cop,
                e,
                labs,
            }
        } else {
            Op::St {
                ra,
                off24: off,
                rd,
                space,
                msize,
                cop,
                e,
                labs,
            }
        };
        let g = self.guard();
        self.b.guarded(g, op);
    }

    /// An integer atomic at the buffer's start, which every thread of the grid shares, or
    /// at the shared word every thread of the CTA shares.
    fn atomic(&mut self) {
        const TYPES: [Aty; 5] = [Aty::U32, Aty::S32, Aty::B32, Aty::U64, Aty::S64];
        let aop = Aop::ALL[self.rng.below(Aop::ALL.len() as u32) as usize];
        let aty = TYPES[self.rng.below(5) as usize];
        let n = if matches!(aty, Aty::U64 | Aty::S64) {
            2
        } else {
            1
        };
        let (ra, space, e) = if self.rng.chance(60) {
            (r(24), Space::Global, true)
        } else {
            (SHARED_ATOMIC, Space::Shared, false)
        };
        let op = if self.rng.chance(70) {
            Op::Atom {
                rd: self.tuple(n),
                ra,
                rb: self.tuple(n),
                rc: self.tuple(n),
                aop,
                aty,
                space,
                e,
            }
        } else {
            Op::Red {
                ra,
                rb: self.tuple(n),
                aop,
                aty,
                space,
                e,
            }
        };
        let g = self.guard();
        self.b.guarded(g, op);
    }

    /// An access to the launch's surface (by slot or by the handle in R18:R19) of a random
    /// form: SULD.B, SUST (`.b`, or `.p` of 32-bit components), SURED or SUQ. Its
    /// coordinates (R16, R17) come from data registers masked into and around the surface's
    /// bounds, x a multiple of the access so that it stays aligned; `.trap` is rare, as a
    /// coordinate out of bounds ends the program there.
    fn surface(&mut self) {
        let (x, y) = (r(16), r(17));
        let rb = if self.rng.chance(50) {
            Surface::Slot(0)
        } else {
            Surface::Handle(r(18))
        };
        let sclamp = match self.rng.below(20) {
            0 => Sclamp::Trap,
            1..=9 => Sclamp::Clamp,
            _ => Sclamp::Zero,
        };
        let kind = self.rng.below(4);
        let elements = kind != 0 && self.rng.chance(40); // SULD has no .p
        let vec = Vwidth::ALL[self.rng.below(3) as usize];
        // Four 64-bit elements are no instruction (the ISA's span_max).
        let dsize = if elements {
            Dsize::B32
        } else {
            Dsize::ALL[self.rng.below(if vec == Vwidth::V4 { 3 } else { 4 }) as usize]
        };
        let sty = Sty::ALL[self.rng.below(6) as usize];
        // A .p reduction of 8 bytes on an element of 4 would be misaligned or past the end
        // half the time: .p reduces 32 bits.
        let sty = if elements && reduce_bytes(sty) == 8 {
            Sty::B32
        } else {
            sty
        };
        // The access's bytes, for x's alignment in .b (a .p access is aligned by the
        // element size, which is a multiple of it).
        let size = match kind {
            2 => reduce_bytes(sty),
            _ => vector_bytes(vec, dsize),
        };
        let regs = u32::from(data_registers(vec, dsize));
        let x_mask = if elements { 0xf } else { 0x7f & !(size - 1) };
        let data = self.data();
        self.b.emit(Op::Lop32i {
            rd: x,
            ra: data,
            imm32: x_mask,
            lop2: Lop2::And,
        });
        let data = self.data();
        self.b.emit(Op::Lop32i {
            rd: y,
            ra: data,
            imm32: 7,
            lop2: Lop2::And,
        });
        if self.rng.chance(25) {
            // Below zero, by a multiple of every access size.
            self.b.emit(Op::Iadd32i {
                rd: x,
                ra: x,
                imm32: (-16i32) as u32,
            });
        }
        let geom = Geom::D2;
        let cop = Cop::Default;
        let op = match kind {
            0 => Op::Suld {
                rd: self.tuple(regs),
                ra: x,
                rb,
                sfmt: false,
                geom,
                vec,
                dsize,
                cop,
                sclamp,
            },
            1 => Op::Sust {
                ra: x,
                rb,
                rc: self.tuple(regs),
                sfmt: elements,
                geom,
                vec,
                dsize,
                cop,
                sclamp,
            },
            2 => Op::Sured {
                ra: x,
                rb,
                rc: self.tuple(reduce_bytes(sty) / 4),
                sfmt: elements,
                sop: Sop::ALL[self.rng.below(5) as usize],
                geom,
                sty,
                sclamp,
            },
            _ => Op::Suq {
                rd: self.data(),
                rb,
                query: Query::ALL[self.rng.below(Query::ALL.len() as u32) as usize],
            },
        };
        let g = self.guard();
        self.b.guarded(g, op);
    }

    /// `SSY join; @P BRA else; then...; BRA join; else: ...; join:`, with `inner` more of
    /// them nested at the end of `then` (a deep reconvergence stack).
    fn if_else(&mut self, inner: u32) {
        let (other, join) = (self.b.label(), self.b.label());
        let p = self.guard_pred();
        self.b.to(ALWAYS, Op::Ssy { target: 0 }, join);
        self.b.to(
            p,
            Op::Bra {
                target: 0,
                uni: false,
            },
            other,
        );
        let (then, otherwise) = (1 + self.rng.below(5), 1 + self.rng.below(5));
        self.nested(then);
        if inner > 0 {
            self.depth += 1;
            self.if_else(inner - 1);
            self.depth -= 1;
        }
        self.b.to(
            ALWAYS,
            Op::Bra {
                target: 0,
                uni: false,
            },
            join,
        );
        self.b.place(other);
        self.nested(otherwise);
        self.b.place(join);
    }

    /// A loop whose trip count (1 to 4) differs by lane: `R27 = (data & 3) + 1; top: ...;
    /// R27 -= 1; P = R27 > 0; SSY end; @P BRA top; end:`, P the last data predicate; the
    /// body may change it, which the next test overwrites.
    fn r#loop(&mut self) {
        let (top, end) = (self.b.label(), self.b.label());
        let k = self.data();
        self.b.emit(Op::Lop32i {
            rd: r(27),
            ra: k,
            imm32: 3,
            lop2: sgpu_isa::Lop2::And,
        });
        self.b.emit(Op::Iadd32i {
            rd: r(27),
            ra: r(27),
            imm32: 1,
        });
        self.b.place(top);
        let body = 1 + self.rng.below(4);
        self.nested(body);
        self.b.emit(Op::Iadd32i {
            rd: r(27),
            ra: r(27),
            imm32: u32::MAX,
        });
        let p3 = self.regs.pred(3);
        self.b
            .emit(isetp(p3, r(27), RegOrImm::Imm(0), Icmp::Gt, true));
        self.b.to(ALWAYS, Op::Ssy { target: 0 }, end);
        let p3 = PredSrc {
            pred: p3,
            negated: false,
        };
        self.b.to(
            p3,
            Op::Bra {
                target: 0,
                uni: false,
            },
            top,
        );
        self.b.place(end);
    }

    /// Statements inside a branch or loop. A loop inside a loop sets R27 again and leaves
    /// it 0, which ends the outer one after its iteration.
    fn nested(&mut self, n: u32) {
        self.depth += 1;
        for _ in 0..n {
            self.statement(false);
        }
        self.depth -= 1;
    }

    fn guard_pred(&mut self) -> PredSrc {
        PredSrc {
            pred: self.regs.pred(self.rng.below(3)),
            negated: self.rng.chance(50),
        }
    }

    /// A call by some lanes or all: of the first function, or (CALLR) of the one each
    /// lane picks by a predicate, so that a warp's lanes call both in turn.
    fn call(&mut self) {
        let g = self.guard();
        if self.rng.chance(50) {
            let op = Op::Call {
                target: 0,
                frame: FRAME,
            };
            self.b.to(g, op, self.callee[0]);
            return;
        }
        for (k, &f) in self.callee.iter().enumerate() {
            let op = Op::Mov32i {
                rd: r(28 + 2 * k as u32),
                imm32: 0,
            };
            self.b.to(ALWAYS, op, f);
        }
        let pick = self.guard_pred();
        self.b.emit(Op::Sel {
            rd: r(28),
            ra: r(28),
            rb: RegOrImm::Reg(r(30)),
            pc: pick,
        });
        self.b.emit(Op::Mov32i {
            rd: r(29),
            imm32: 0,
        });
        let op = Op::Callr {
            ra: r(28),
            rframe: FRAME,
        };
        self.b.guarded(g, op);
    }
}
