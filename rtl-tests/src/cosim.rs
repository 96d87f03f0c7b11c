//! Lock-step co-simulation (docs/cosim.md): the Verilated core runs a kernel while the golden
//! model follows it, one retired warp instruction at a time. For each retirement the model
//! steps the same warp ([`sgpu_sim::cta::Cta::step`]) and the two records are compared field
//! by field: pc, word, active and executing lanes, where the warp goes next, every register
//! lane written, predicates, carry and stores. The first difference stops the run. The core's
//! memory port is served from a copy of the same prepared memory image the model uses, and
//! the two global memories must be equal at the end.
//!
//! A load retires when its requests have gone out; its register writes come later and are
//! matched against the model's values as they come ([`crate::late`]). A load's or store's
//! error answer therefore traps after its retirement, when other warps may have retired
//! more: the model traps at the retirement itself, the memories are compared then, and the
//! core must report the same trap when it stops.

use crate::late::{Difference, LateWrites};
use crate::model::{Core, Inputs, Model, Outputs};
use crate::port::{block_bytes, port_space, Port, Timing};
use crate::requests::{self, Log, Logged, Request};
use sgpu_isa::{abi, fields, opcodes};
use sgpu_sim::cta::{Cta, Grid};
use sgpu_sim::launch::Prepared;
use sgpu_sim::memory::{Global, Memories, Memory};
use sgpu_sim::program::{Function, Program};
use sgpu_sim::record::{Retired, Space};
use sgpu_sim::trap::{Cause, Trap};
use sgpu_sim::warp::LANES;
use sgpu_sim::Shape;
use std::path::PathBuf;

/// Words of the core's instruction memory (`IMEM_WORDS` of hw/sgpu_core.sv).
pub const IMEM_WORDS: usize = 16384;

/// The variable the tests' seed of initial values is read from.
pub const X_SEED_VARIABLE: &str = "SGPU_X_SEED";

#[derive(Clone, Debug)]
pub struct Options {
    pub lanes: u32,
    pub warps: u32,
    /// Run yosys's gate-level netlist of the core rather than its RTL (built for the
    /// smallest core only: build.rs's NETLISTS).
    pub netlist: bool,
    pub max_cycles: u64,
    /// How the memory behind the port answers (the tests': random, seeded).
    pub memory: Timing,
    /// The registers that reset leaves alone start at random values of this seed (X
    /// checking), or at zero with 0. The tests': `SGPU_X_SEED`, else fresh.
    pub x_seed: u64,
    /// A test of the RTL's assertions: from this cycle on, the core gets these faults
    /// (`fault_i`), and an assertion must stop the run.
    pub inject: Option<(u64, u8)>,
    pub vcd: Option<PathBuf>,
    /// A test of the checker itself: the model's record of the first register-writing
    /// instruction from this retirement on gets one bit flipped, which must be reported.
    pub fault: Option<u64>,
    /// Check in lock-step (the default); without, the core runs alone (for measuring its
    /// speed), its memory served the same way.
    pub check: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lanes: 8,
            warps: 8,
            netlist: false,
            max_cycles: 200_000_000,
            memory: Timing::from_env(),
            x_seed: crate::seed::from_env(X_SEED_VARIABLE),
            inject: None,
            vcd: None,
            fault: None,
            check: true,
        }
    }
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub cycles: u64,
    pub retired: u64,
}

impl Report {
    pub fn ipc(&self) -> f64 {
        self.retired as f64 / self.cycles.max(1) as f64
    }
}

/// How a run ended other than well.
#[derive(Debug)]
pub enum Failure {
    /// The launch or program cannot run on this core (exit status 1).
    Input(String),
    /// Both sides trapped alike (exit status 3): the model's trap.
    Trap(Box<Trap>, Report),
    /// The RTL and the model disagree (exit status 2).
    Mismatch(String),
    /// The run passed its cycle limit with no difference found (exit status 4).
    CycleLimit(String),
}

/// The trap code the core reports for a cause of the model (docs/hw.md); `None` for causes
/// no core raises (the harness's own).
pub fn trap_code(c: &Cause) -> Option<u64> {
    use Cause::*;
    Some(match c {
        PcOutsideCode { .. } => abi::TRAP_PC_OUTSIDE_CODE,
        InvalidInstruction(_) => abi::TRAP_INVALID,
        TrapInstruction => abi::TRAP_INSTRUCTION,
        Misaligned { .. } => abi::TRAP_MISALIGNED,
        OutOfBounds { .. } => abi::TRAP_OUT_OF_BOUNDS,
        ConstantWrite { .. } => abi::TRAP_CONSTANT_WRITE,
        NoConstantBank { .. } => abi::TRAP_NO_CONST_BANK,
        RetOutsideCall => abi::TRAP_RET_OUTSIDE,
        StackOverflow => abi::TRAP_STACK_OVERFLOW,
        CallTarget { .. } => abi::TRAP_CALL_TARGET,
        FrameOverflow { .. } => abi::TRAP_FRAME_OVERFLOW,
        SyncMembers { .. } => abi::TRAP_SYNC_MEMBERS,
        BarrierId { .. } => abi::TRAP_BARRIER_ID,
        BarrierCount { .. } => abi::TRAP_BARRIER_COUNT,
        BarrierMismatch { .. } => abi::TRAP_BARRIER_MISMATCH,
        Surface(_) => abi::TRAP_SURFACE,
        Deadlock => abi::TRAP_DEADLOCK,
        InstructionLimit { .. } | Interrupted | NoKernel(_) | Launch(_) | NotReady { .. } => {
            return None
        }
    })
}

/// What the RTL reported of the instruction in flight, gathered over its cycles.
#[derive(Default)]
struct Gathered {
    /// (register, lane, value) in write order.
    regs: Vec<(u8, usize, u32)>,
    /// (lane, space, address, bytes).
    stores: Vec<(usize, Space, u64, Vec<u8>)>,
    /// The memory requests the port took.
    requests: Vec<Request>,
}

/// Runs `prepared`'s launch of `program` on the core and the model in lock-step. On success
/// (and on a trap both agree on) `prepared.global` holds the final global memory. A
/// mismatch ends with the seeds that repeat the run.
pub fn run(program: &Program, prepared: &mut Prepared, o: &Options) -> Result<Report, Failure> {
    lock_step(program, prepared, o).map_err(|f| match f {
        Failure::Mismatch(what) => {
            let initial = match o.x_seed {
                0 => "zero".to_string(),
                seed => format!("random, seed {seed} ({X_SEED_VARIABLE}={seed} repeats it)"),
            };
            Failure::Mismatch(format!(
                "{what}\n  memory: {}\n  initial register values: {initial}",
                o.memory
            ))
        }
        other => other,
    })
}

fn lock_step(program: &Program, prepared: &mut Prepared, o: &Options) -> Result<Report, Failure> {
    let launch = &prepared.launch;
    let kernel = program
        .function(&launch.kernel)
        .filter(|f| f.info.entry)
        .ok_or_else(|| Failure::Input(format!("no kernel `{}` in the program", launch.kernel)))?;
    let shape = launch.check(kernel).map_err(Failure::Input)?;
    if shape.warps > o.warps {
        return Err(Failure::Input(format!(
            "a CTA of {} threads needs {} warps; this core has {} (--warps)",
            shape.threads, shape.warps, o.warps
        )));
    }
    if program.code.len() > IMEM_WORDS {
        return Err(Failure::Input(format!(
            "the program has {} words of code; the core's instruction memory holds {IMEM_WORDS}",
            program.code.len()
        )));
    }
    if o.netlist && o.vcd.is_some() {
        return Err(Failure::Input(
            "the netlist writes no waveform: run the RTL for one".into(),
        ));
    }
    let core = Core {
        lanes: o.lanes,
        warps: o.warps,
        netlist: o.netlist,
    };
    let mut model = Model::new(core, o.vcd.as_deref(), o.x_seed).ok_or_else(|| {
        let built: Vec<String> = crate::model::available()
            .iter()
            .map(|c| c.to_string())
            .collect();
        Failure::Input(format!(
            "{core} was not built (built: {})",
            built.join(", ")
        ))
    })?;
    let mut rtl_global = prepared.global.clone();
    let mut golden_global = prepared.global.clone();
    let params = launch.params.clone();
    let mut rtl_memory = Memories::new(&mut rtl_global, &params, &program.constants);
    let mut golden_memory = Memories::new(&mut golden_global, &params, &program.constants);
    let log = Log::default();
    let mut logged = Logged {
        memory: &mut golden_memory,
        log: log.clone(),
    };
    let mut grid = Grid {
        program,
        memory: &mut logged,
        surfaces: &prepared.surfaces,
        grid: launch.grid,
        block: launch.block,
        clock: 0,
    };
    let mut run = Run {
        program,
        kernel,
        shape,
        cta: None,
        ctas: 0,
        report: Report::default(),
        port: Port::new(o.memory),
        log,
        late: LateWrites::default(),
        deferred: None,
        gathered: Gathered::default(),
        retired: Retired::default(),
        fault: o.fault,
        inject: o.inject,
        check: o.check,
    };
    // The core reads descriptor `h` as the two 16-byte blocks at table + 32h.
    let surfaces = &prepared.surfaces;
    if !surfaces.table.is_multiple_of(32) {
        return Err(Failure::Input(format!(
            "the surface descriptor table at {:#x} is not 32-byte aligned",
            surfaces.table
        )));
    }
    let mut inputs = start(&mut model, program, kernel, &shape, launch);
    inputs.surf_table = surfaces.table;
    inputs.surf_count = u32::try_from(surfaces.bound.len()).map_err(|_| {
        Failure::Input(format!(
            "{} surfaces are more than the launch's 32-bit count",
            surfaces.bound.len()
        ))
    })?;
    let result = run.cycles(&mut model, inputs, &mut grid, &mut rtl_memory, o.max_cycles);
    let finished = match result {
        Ok(()) => Ok(run.report),
        Err(Failure::Trap(t, _)) => Err(Failure::Trap(t, run.report)),
        Err(e) => return Err(e),
    };
    let deferred = run.deferred.map(|d| d.rtl_global);
    if !o.check {
        prepared.global = rtl_global;
        return finished;
    }
    // After a trap the model took at a retirement the RTL's memory of that moment is
    // compared: the core went on until the error answer reached it.
    if let Some(what) = global_differs(deferred.as_ref().unwrap_or(&rtl_global), &golden_global) {
        return Err(Failure::Mismatch(format!("final memory differs: {what}")));
    }
    prepared.global = golden_global;
    finished
}

/// Resets the core, loads the code and returns the launch's inputs.
fn start(
    model: &mut Model,
    program: &Program,
    kernel: &Function,
    shape: &Shape,
    launch: &sgpu_sim::Launch,
) -> Inputs {
    let mut i = Inputs::default();
    for _ in 0..2 {
        model.cycle(&i);
    }
    i.rst_n = 1;
    for (at, &word) in program.code.iter().enumerate() {
        i.imem_we = 1;
        i.imem_addr = at as u32;
        i.imem_wdata = word;
        model.cycle(&i);
    }
    i.imem_we = 0;
    i.code_words = program.code.len() as u32;
    i.entry = kernel.start;
    i.grid = launch.grid;
    i.block = launch.block;
    i.shared = shape.shared;
    i.dyn_shared = launch.shared;
    i.local = shape.local;
    i
}

/// The trap the model took at a load's or store's retirement, which the core reports when the
/// error answer reaches it: the trap, the instruction's pc and warp, and the RTL's global
/// memory at the retirement (the model's stops there).
struct Deferred {
    trap: Box<Trap>,
    pc: u32,
    warp: u8,
    rtl_global: Global,
}

/// The state of a run between cycles.
struct Run<'p> {
    program: &'p Program,
    kernel: &'p Function,
    shape: Shape,
    cta: Option<Cta>,
    ctas: u64,
    report: Report,
    port: Port,
    /// The model's memory accesses since the last retirement.
    log: Log,
    late: LateWrites,
    deferred: Option<Deferred>,
    gathered: Gathered,
    retired: Retired,
    fault: Option<u64>,
    inject: Option<(u64, u8)>,
    check: bool,
}

impl Run<'_> {
    fn cycles(
        &mut self,
        model: &mut Model,
        mut inputs: Inputs,
        grid: &mut Grid<'_>,
        memory: &mut Memories<'_>,
        max_cycles: u64,
    ) -> Result<(), Failure> {
        inputs.start = 1;
        loop {
            let cycle = self.report.cycles;
            if cycle >= max_cycles {
                return Err(Failure::CycleLimit(format!(
                    "the core ran past {max_cycles} cycles (--max-cycles) after {} instructions",
                    self.report.retired
                )));
            }
            self.port.drive(&mut inputs, cycle);
            inputs.fault = self
                .inject
                .filter(|&(from, _)| cycle >= from)
                .map_or(0, |f| f.1);
            let out = model.cycle(&inputs);
            if out.assert_failed != 0 {
                return Err(Failure::Mismatch(format!(
                    "an assertion of the RTL failed at cycle {cycle}:\n{}",
                    assertion_report(&crate::model::messages())
                )));
            }
            inputs.start = 0;
            self.report.cycles += 1;
            if out.rvfi_cta != 0 {
                self.start_cta(&out, grid, memory);
            }
            let accepted = self.port.after(&inputs, &out, memory, cycle);
            if accepted && self.check {
                self.gathered.requests.push(Request::from_port(&out));
            }
            self.gather(&out)?;
            if out.rvfi_valid != 0 {
                self.retire(&out, grid, memory)?;
            }
            if out.done != 0 {
                return self.finish(&out, grid);
            }
        }
    }

    fn start_cta(&mut self, out: &Outputs, grid: &mut Grid<'_>, memory: &mut Memories<'_>) {
        let s = &self.shape;
        memory.start_cta(s.shared as usize, s.threads as usize, s.local as usize);
        self.cta = Some(Cta::new(self.kernel, s, out.rvfi_cta_idx, grid));
        self.ctas += 1;
    }

    /// Register writes and stores of the instruction in flight, and posted loads' writes.
    fn gather(&mut self, out: &Outputs) -> Result<(), Failure> {
        if out.rvfi_lw_valid != 0 && self.check && self.deferred.is_none() {
            let key = (
                out.rvfi_lw_warp,
                out.rvfi_lw_reg,
                usize::from(out.rvfi_lw_lane),
            );
            self.late
                .written(key, out.rvfi_lw_data)
                .map_err(|d| self.late_mismatch(out, d))?;
        }
        if out.rvfi_rf_we != 0 {
            for k in 0..32usize {
                if out.rvfi_rf_lanes >> k & 1 != 0 {
                    let lane = usize::from(out.rvfi_rf_lane0) + k;
                    self.gathered
                        .regs
                        .push((out.rvfi_rf_reg, lane, out.rvfi_rf_data[k]));
                }
            }
        }
        if out.rvfi_st_valid != 0 {
            // At most the block: a longer length from a broken core is reported, not a panic.
            let len = usize::from(out.rvfi_st_len).min(16);
            let data = block_bytes(out.rvfi_st_data)[..len].to_vec();
            let space = port_space(out.rvfi_st_space).unwrap_or_default();
            let lane = usize::from(out.rvfi_st_lane);
            self.gathered
                .stores
                .push((lane, space, out.rvfi_st_addr, data));
        }
        Ok(())
    }

    /// A retirement: the model steps the same warp, and the records must agree.
    fn retire(
        &mut self,
        out: &Outputs,
        grid: &mut Grid<'_>,
        memory: &Memories<'_>,
    ) -> Result<(), Failure> {
        if !self.check || self.deferred.is_some() {
            self.gathered = Gathered::default();
            self.report.retired += 1;
            return Ok(());
        }
        let warp = usize::from(out.rvfi_warp);
        let cta = self.cta.as_mut().ok_or_else(|| {
            Failure::Mismatch("the RTL retired an instruction before starting a CTA".into())
        })?;
        let step = cta.step(warp, grid, &mut self.retired);
        let model_requests = std::mem::take(&mut *self.log.borrow_mut());
        if let Err(trap) = step {
            if posted(out.rvfi_word) && trap_code(&trap.cause) == Some(abi::TRAP_OUT_OF_BOUNDS) {
                self.deferred = Some(Deferred {
                    trap: Box::new(trap),
                    pc: out.rvfi_pc,
                    warp: out.rvfi_warp,
                    rtl_global: memory.global.clone(),
                });
                self.gathered = Gathered::default();
                return Ok(());
            }
            return Err(self.mismatch(out, &format!("the model trapped: {trap}; the RTL did not")));
        }
        inject_fault(&mut self.retired, &mut self.fault, self.report.retired);
        let r = &self.retired;
        if r.nondeterministic {
            // %clock: the model takes the RTL's value.
            for &(reg, lane, value) in &self.gathered.regs {
                cta.warps[warp].regs[usize::from(reg)][lane] = value;
            }
        }
        let writes = model_writes(r);
        let late = out.rvfi_late != 0;
        let difference =
            differ(r, out, &self.gathered, if late { &[] } else { &writes }).or_else(|| {
                match surface(out.rvfi_word) {
                    false => requests::differ(&model_requests, &self.gathered.requests),
                    true => None,
                }
            });
        self.gathered = Gathered::default();
        if let Some(what) = difference {
            return Err(self.mismatch(out, &what));
        }
        if late {
            self.late
                .retired(out.rvfi_warp, out.rvfi_pc, &writes)
                .map_err(|d| self.late_mismatch(out, d))?;
        }
        self.report.retired += 1;
        Ok(())
    }

    /// The core stopped: the grid ended, or it trapped and the model must trap alike.
    fn finish(&mut self, out: &Outputs, grid: &mut Grid<'_>) -> Result<(), Failure> {
        let code = u64::from(out.trap_cause);
        if !self.check {
            return match code {
                abi::TRAP_NONE => Ok(()),
                _ => Err(self.mismatch(out, &format!("the core trapped with cause {code}"))),
            };
        }
        if let Some(d) = &self.deferred {
            let same = trap_code(&d.trap.cause) == Some(code)
                && (out.trap_pc, out.trap_warp) == (d.pc, d.warp);
            return match same {
                true => Err(Failure::Trap(d.trap.clone(), self.report)),
                false => Err(self.mismatch_at(
                    d.pc,
                    d.warp,
                    &format!(
                        "the model trapped at this instruction's retirement: {}; the RTL \
                         stopped with cause {code} at pc {:#x} in warp {}",
                        d.trap,
                        u64::from(out.trap_pc) * 8,
                        out.trap_warp
                    ),
                )),
            };
        }
        if code == abi::TRAP_NONE {
            self.late
                .settled()
                .map_err(|d| self.late_mismatch(out, d))?;
        }
        let Some(cta) = self.cta.as_mut() else {
            return Err(Failure::Mismatch(
                "the core finished without starting a CTA".into(),
            ));
        };
        if code == abi::TRAP_NONE {
            let total: u64 = grid.grid.iter().map(|&n| u64::from(n)).product();
            if !cta.finished() || self.ctas != total {
                return Err(Failure::Mismatch(format!(
                    "the core finished after {} of {total} CTAs; the model has warps left",
                    self.ctas
                )));
            }
            return Ok(());
        }
        let trap = if code == abi::TRAP_DEADLOCK {
            (cta.ready() == 0 && !cta.finished())
                .then(|| cta.trap(Cause::Deadlock, 0, None, None, self.program))
        } else {
            cta.step(usize::from(out.trap_warp), grid, &mut self.retired)
                .err()
        };
        match trap {
            Some(t) if trap_code(&t.cause) == Some(code) => {
                Err(Failure::Trap(Box::new(t), self.report))
            }
            Some(t) => Err(self.mismatch(
                out,
                &format!("the RTL trapped with cause {code}; the model with: {t}"),
            )),
            None => Err(self.mismatch(
                out,
                &format!("the RTL trapped with cause {code}; the model did not"),
            )),
        }
    }

    /// The report of the first difference, at the instruction retiring (or trapping).
    fn mismatch(&self, out: &Outputs, what: &str) -> Failure {
        match out.rvfi_valid != 0 {
            true => self.mismatch_at(out.rvfi_pc, out.rvfi_warp, what),
            false => self.mismatch_at(out.trap_pc, out.trap_warp, what),
        }
    }

    /// A difference in a posted load's register writes, at the load.
    fn late_mismatch(&self, out: &Outputs, d: Difference) -> Failure {
        self.mismatch_at(d.pc.unwrap_or(out.rvfi_pc), d.warp, &d.what)
    }

    fn mismatch_at(&self, pc: u32, warp: u8, what: &str) -> Failure {
        let word = self.program.code.get(pc as usize).copied().unwrap_or(0);
        let text = sgpu_sim::warp::text(word);
        let cta = self.cta.as_ref().map_or([0; 3], |c| c.index);
        Failure::Mismatch(format!(
            "mismatch at cycle {}, CTA {cta:?}, warp {warp}, pc {:#x}: `{text}` ({})\n  {what}\n  \
             {} warp instructions matched before it",
            self.report.cycles,
            u64::from(pc) * 8,
            self.program.source_line(pc),
            self.report.retired
        ))
    }
}

/// `Options::fault`: flips bit 0 of the first executing lane's first register value in `r`,
/// once `retired` instructions have passed.
fn inject_fault(r: &mut Retired, fault: &mut Option<u64>, retired: u64) {
    let due = fault.is_some_and(|n| retired >= n);
    if due && r.regs.count > 0 && r.regs.first != 0xff && r.mask != 0 {
        let lane = r.mask.trailing_zeros() as usize;
        r.regs.values[0][lane] ^= 1;
        *fault = None;
    }
}

/// The first failures of Verilator's messages, without its "$stop" lines.
fn assertion_report(messages: &str) -> String {
    const SHOWN: usize = 8;
    let failures: Vec<&str> = messages
        .lines()
        .filter(|l| !l.ends_with("Verilog $stop"))
        .collect();
    let mut report = failures[..failures.len().min(SHOWN)].join("\n");
    if failures.len() > SHOWN {
        report.push_str(&format!("\n({} more)", failures.len() - SHOWN));
    }
    report
}

/// The opcode of an instruction word.
fn opcode(word: u64) -> u8 {
    ((word >> fields::OP.lsb) & ((1 << (fields::OP.msb - fields::OP.lsb + 1)) - 1)) as u8
}

/// Whether the instruction is a load or store, whose errors come back through the port.
fn posted(word: u64) -> bool {
    [opcodes::LD, opcodes::LDC, opcodes::ST].contains(&opcode(word))
}

/// Whether the instruction is a surface access, whose requests are not compared one for
/// one: the core reads a lane's descriptor only when it differs from the last lane's (and
/// again after a store into the table), the model for every lane.
fn surface(word: u64) -> bool {
    [opcodes::SULD, opcodes::SUST, opcodes::SURED, opcodes::SUQ].contains(&opcode(word))
}

/// Where two global memories differ first, if they do.
fn global_differs(rtl: &Global, model: &Global) -> Option<String> {
    rtl.regions.iter().zip(&model.regions).find_map(|(r, g)| {
        let at = r.bytes.iter().zip(&g.bytes).position(|(a, b)| a != b)?;
        Some(format!(
            "`{}` byte {at} ({:#x}): model {:#04x}, RTL {:#04x}",
            r.name,
            r.base + at as u64,
            g.bytes[at],
            r.bytes[at]
        ))
    })
}

/// Where the RTL's retirement differs from the model's record, if it does; `writes` are the
/// register writes it must have reported (none for a posted load's, which come later).
fn differ(r: &Retired, out: &Outputs, g: &Gathered, writes: &[(u8, usize, u32)]) -> Option<String> {
    let same = |what: &str, model: u64, rtl: u64| {
        (model != rtl).then(|| format!("{what}: model {model:#x}, RTL {rtl:#x}"))
    };
    same("pc", r.pc.into(), out.rvfi_pc.into())
        .or_else(|| same("word", r.word, out.rvfi_word))
        .or_else(|| same("active lanes", r.active.into(), out.rvfi_active.into()))
        .or_else(|| same("executing lanes", r.mask.into(), out.rvfi_mask.into()))
        .or_else(|| next_differs(r, out))
        .or_else(|| regs_differ(writes, r.nondeterministic, g))
        .or_else(|| preds_differ(r, out))
        .or_else(|| {
            let rtl = (out.rvfi_carry_we != 0).then_some(out.rvfi_carry);
            (r.carry != rtl).then(|| format!("carry: model {:x?}, RTL {rtl:x?}", r.carry))
        })
        .or_else(|| stores_differ(r, g))
        .or_else(|| {
            let model = r.barrier.map(|b| {
                let result = b.result.map(|(op, value)| (op as u8, value));
                (b.id, b.waits, b.released, result)
            });
            let rtl = (out.rvfi_bar_valid != 0).then_some((
                out.rvfi_bar_id,
                out.rvfi_bar_waits != 0,
                out.rvfi_bar_released,
                (out.rvfi_bar_red != 0 && out.rvfi_bar_released != 0)
                    .then_some((out.rvfi_bar_op, out.rvfi_bar_value)),
            ));
            (model != rtl).then(|| {
                format!(
                    "barrier (id, waits, warps released, reduction): model {model:x?}, RTL {rtl:x?}"
                )
            })
        })
}

fn next_differs(r: &Retired, out: &Outputs) -> Option<String> {
    let rtl = (out.rvfi_exited == 0).then_some((out.rvfi_next_pc, out.rvfi_next_active));
    (r.next != rtl).then(|| {
        format!(
            "where the warp goes next (pc, lanes): model {:x?}, RTL {rtl:x?}",
            r.next
        )
    })
}

/// The register lanes the model wrote (in the executing lanes): (register, lane, value).
fn model_writes(r: &Retired) -> Vec<(u8, usize, u32)> {
    let mut writes = Vec::new();
    for (reg, values) in r.regs.iter() {
        if reg == 0xff {
            continue;
        }
        for lane in (0..LANES).filter(|l| r.mask >> l & 1 != 0) {
            writes.push((reg, lane, values[lane]));
        }
    }
    writes
}

/// Every register lane of `writes` the RTL wrote alike, and nothing else.
fn regs_differ(
    writes: &[(u8, usize, u32)],
    nondeterministic: bool,
    g: &Gathered,
) -> Option<String> {
    let mut expected = writes.to_vec();
    let mut got = g.regs.clone();
    expected.sort_unstable();
    got.sort_unstable();
    if expected == got || nondeterministic {
        return None;
    }
    let first = expected
        .iter()
        .zip(&got)
        .find(|(e, a)| e != a)
        .map(|(e, a)| (Some(*e), Some(*a)))
        .unwrap_or_else(|| {
            (
                expected.get(got.len()).copied(),
                got.get(expected.len()).copied(),
            )
        });
    let show = |x: Option<(u8, usize, u32)>| {
        x.map_or("nothing".to_string(), |(reg, lane, v)| {
            format!("R{reg} lane {lane} = {v:#010x}")
        })
    };
    Some(format!(
        "register writes: model {}, RTL {} ({} lane writes against {})",
        show(first.0),
        show(first.1),
        expected.len(),
        got.len()
    ))
}

/// The predicates written, in the role order (pd, pq) with PT left out, as both sides list
/// them.
fn preds_differ(r: &Retired, out: &Outputs) -> Option<String> {
    let rtl: Vec<(u8, u32)> = (0..2)
        .filter(|&k| out.rvfi_pred_we >> k & 1 != 0)
        .map(|k| (out.rvfi_pred_idx[k], out.rvfi_pred_val[k]))
        .collect();
    let model: Vec<(u8, u32)> = r.preds.iter().flatten().copied().collect();
    (model != rtl).then(|| format!("predicate writes: model {model:x?}, RTL {rtl:x?}"))
}

fn stores_differ(r: &Retired, g: &Gathered) -> Option<String> {
    let model: Vec<(usize, Space, u64, Vec<u8>)> = r
        .stores()
        .iter()
        .map(|s| (usize::from(s.lane), s.space, s.address, s.data().to_vec()))
        .collect();
    (model != g.stores).then(|| {
        format!(
            "stores (lane, space, address, bytes): model {model:x?}, RTL {:x?}",
            g.stores
        )
    })
}
