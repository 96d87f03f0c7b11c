//! The golden model as a lock-step reference: named barriers, warp operations with partial
//! member masks and out-of-range operands, limits that trap instead of panicking, and the
//! retirement record a co-simulation compares. Each kernel is checked against PTX's rules
//! written out here, separately from the model.

mod common;
#[path = "common/shfl_operands.rs"]
mod shfl_operands;

use common::{assemble_and_observe, assemble_and_run, list, u32s, xorshift};
use sgpu_sim::launch::Prepared;
use sgpu_sim::record::{Retired, Space};
use sgpu_sim::{Cause, Trap};

fn run(name: &str, manifest: &str) -> Result<Prepared, Trap> {
    let (path, source) = common::kernel(name);
    assemble_and_run(&source, &path, manifest)
}

/// The trap a run must end in.
fn trap(result: Result<Prepared, Trap>) -> Cause {
    match result {
        Ok(_) => panic!("the kernel finished; it should have trapped"),
        Err(t) => t.cause,
    }
}

#[test]
fn producer_and_consumer_meet_at_named_barriers_with_counts() {
    let p = run(
        "prodcons",
        "block = [96]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n",
    )
    .unwrap();
    assert_eq!(u32s(&p, "out"), vec![42; 32]);
}

/// The barrier events of prodcons under the model's round-robin order: warps 0 and 2 meet at
/// barrier 2 (warp 2's arrival releases both); warp 1 waits at barrier 1 until warp 0's
/// `.arrive` releases it, and warp 0 itself does not wait.
#[test]
fn barrier_arrivals_are_in_the_record() {
    let (path, source) = common::kernel("prodcons");
    let mut events = Vec::new();
    assemble_and_observe(
        &source,
        &path,
        "block = [96]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n",
        |_, warp, r| {
            if let Some(e) = r.barrier {
                events.push((warp, e.id, e.waits, e.released));
            }
        },
    )
    .unwrap();
    assert_eq!(
        events,
        vec![
            (0, 2, true, 0),
            (1, 1, true, 0),
            (2, 2, true, 0b101),
            (0, 1, false, 0b010)
        ]
    );
}

/// A one-warp kernel that runs `bar.sync` on the barrier and count given as parameters.
const BAR_PARAMS: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry bar_params (.param .u32 id, .param .u32 count)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [id];
	ld.param.u32 %r2, [count];
	bar.sync %r1, %r2;
	ret;
}
";

#[test]
fn barrier_ids_and_counts_out_of_range_trap() {
    let launch = |id: i64, count: i64, threads: u32| {
        let manifest =
            format!("block = [{threads}]\nparams = [{{ u32 = {id} }}, {{ u32 = {count} }}]\n");
        assemble_and_run(BAR_PARAMS, "bar_params.ptx", &manifest)
    };
    launch(15, 64, 64).unwrap();
    assert_eq!(trap(launch(16, 32, 32)), Cause::BarrierId { id: 16 });
    assert_eq!(trap(launch(0, 48, 64)), Cause::BarrierCount { count: 48 });
    assert_eq!(trap(launch(0, 0, 32)), Cause::BarrierCount { count: 0 });
    // 96 threads named, 64 in the CTA: nothing can complete the barrier.
    assert_eq!(trap(launch(3, 96, 64)), Cause::Deadlock);
}

/// The rules of `match`, `redux`, `vote` for one lane given its member mask, as PTX states
/// them: only the lanes of the mask count.
fn warp_ops_expected(values: &[u32; 32], lane: usize) -> [u32; 8] {
    let members: u32 = if lane < 16 { 0x0000_ffff } else { 0xffff_0000 };
    let in_mask = |k: usize| members >> k & 1 != 0;
    let same = (0..32)
        .filter(|&k| in_mask(k) && values[k] == values[lane])
        .fold(0u32, |m, k| m | 1 << k);
    let all_same = same == members;
    let member_values = || (0..32).filter(|&k| in_mask(k)).map(|k| values[k]);
    let ballot = (0..32)
        .filter(|&k| in_mask(k) && values[k] & 1 != 0)
        .fold(0u32, |m, k| m | 1 << k);
    [
        same,
        if all_same { members } else { 0 },
        u32::from(all_same),
        member_values().fold(0u32, u32::wrapping_add),
        member_values().max().unwrap(),
        ballot,
        u32::from(ballot == members),
        lane as u32,
    ]
}

#[test]
fn warp_operations_see_only_their_member_mask() {
    let mut next64 = xorshift(0x5eed);
    let mut next = move || (next64() >> 16) as u32;
    // Few distinct values, so that lanes match; the second half all equal (match.all true,
    // vote.all of odd values true).
    let cases: Vec<[u32; 32]> = (0..6)
        .map(|case| {
            std::array::from_fn(|l| match (case, l) {
                (0, l) if l >= 16 => 7,
                (1, _) => 3,
                _ => next() % 4,
            })
        })
        .collect();
    for values in cases {
        let manifest = format!(
            "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 1024\n",
            list(values)
        );
        let p = run("warpmasks", &manifest).unwrap();
        let out = u32s(&p, "out");
        for lane in 0..32 {
            assert_eq!(
                out[8 * lane..8 * lane + 8],
                warp_ops_expected(&values, lane),
                "lane {lane}, values {values:?}"
            );
        }
    }
}

/// shfl.sync's pseudocode from the PTX ISA, transcribed: the source lane (own lane when out
/// of range) and the predicate.
fn shfl_expected(mode: usize, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 31;
    let cval = c & 31;
    let mask = (c >> 8) & 31;
    let max_lane = (lane & mask) | (cval & !mask);
    let min_lane = lane & mask;
    let (j, pval): (i64, bool) = match mode {
        0 => {
            let j = i64::from(min_lane | (bval & !mask));
            (j, j <= i64::from(max_lane))
        }
        1 => {
            let j = i64::from(lane) - i64::from(bval);
            (j, j >= i64::from(max_lane))
        }
        2 => {
            let j = i64::from(lane + bval);
            (j, j <= i64::from(max_lane))
        }
        _ => {
            let j = i64::from(lane ^ bval);
            (j, j <= i64::from(max_lane))
        }
    };
    if pval {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// The edge operand sets of tests/kernels/shfl_lanes.operands (rtl-tests' cosim_warp.rs
/// runs them on the RTL).
fn shfl_edge_operands() -> Vec<[u32; 8]> {
    let at =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/shfl_lanes.operands");
    shfl_operands::parse(&common::read(&at))
}

#[test]
fn shuffles_slice_lane_and_clamp_operands() {
    let mut next64 = xorshift(0xabcdef);
    let mut next = move || (next64() >> 16) as u32;
    let mut operand_sets = shfl_edge_operands();
    operand_sets.extend((0..20).map(|_| std::array::from_fn(|_| next())));
    for ops in operand_sets {
        let manifest = format!(
            "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 640\n",
            list(ops)
        );
        let p = run("shfl_lanes", &manifest).unwrap();
        let out = u32s(&p, "out");
        for lane in 0..32u32 {
            let mut flags = 0;
            for mode in 0..4 {
                let (j, ok) = shfl_expected(mode, lane, ops[2 * mode], ops[2 * mode + 1]);
                let got = out[(5 * lane) as usize + mode];
                assert_eq!(
                    got,
                    j * 100 + 7,
                    "lane {lane}, mode {mode}, operands {ops:x?}"
                );
                flags |= u32::from(ok) << mode;
            }
            assert_eq!(out[(5 * lane + 4) as usize], flags, "lane {lane}, {ops:x?}");
        }
    }
}

fn recursion(which: u32) -> Cause {
    let manifest = format!(
        "params = [{{ buffer = \"out\" }}, {{ u32 = {which} }}]\n[buffers.out]\nsize = 4\n"
    );
    trap(run("deep_recursion", &manifest))
}

#[test]
fn endless_recursion_overflows_the_stack_as_a_trap() {
    assert_eq!(recursion(0), Cause::StackOverflow);
    assert!(
        matches!(
            recursion(1),
            Cause::FrameOverflow { .. }
                | Cause::OutOfBounds {
                    space: Space::Local,
                    ..
                }
        ),
        "{:?}",
        recursion(1)
    );
}

/// `CALLR` through a function's address plus `offset`: the address itself calls, one not a
/// multiple of 8 or past 32-bit word indices traps as a bad call target, one past the code
/// when fetched.
#[test]
fn indirect_calls_to_no_instruction_trap() {
    let launch = |offset: u64| {
        let manifest = format!(
            "params = [{{ buffer = \"out\" }}, {{ u64 = {offset} }}]\n[buffers.out]\nsize = 4\n"
        );
        run("badcall", &manifest)
    };
    let p = launch(0).unwrap_or_else(|t| panic!("{t}"));
    assert_eq!(u32s(&p, "out"), [1]);
    for offset in [4, 1 << 40] {
        let cause = trap(launch(offset));
        // The function's own address: a multiple of 8 below 4 GiB.
        let base_fits = |address: u64| {
            let base = address.wrapping_sub(offset);
            base % 8 == 0 && base < 1 << 32
        };
        assert!(
            matches!(cause, Cause::CallTarget { address } if base_fits(address)),
            "offset {offset:#x}: {cause:?}"
        );
    }
    let cause = trap(launch(8 << 20));
    assert!(matches!(cause, Cause::PcOutsideCode { .. }), "{cause:?}");
}

#[test]
fn accesses_that_wrap_the_address_space_trap() {
    for (which, at) in [(0, -8i64), (1, -8), (2, -16)] {
        let manifest = format!(
            "params = [{{ buffer = \"out\" }}, {{ u64 = {at} }}, {{ u32 = {which} }}]\n\
             [buffers.out]\nsize = 8\n"
        );
        let cause = trap(run("toploads", &manifest));
        assert!(
            matches!(
                cause,
                Cause::OutOfBounds {
                    space: Space::Global,
                    address,
                    ..
                } if address == at as u64
            ),
            "access {which}: {cause:?}"
        );
    }
    let cause = trap(run(
        "toploads",
        "params = [{ buffer = \"out\" }, { u64 = -4 }, { u32 = 0 }]\n[buffers.out]\nsize = 8\n",
    ));
    assert_eq!(
        cause,
        Cause::Misaligned {
            address: u64::MAX - 3,
            size: 8
        }
    );
}

/// Every store of the kernel appears in the record with its lane, address, bytes and mask,
/// and every register written holds, in the record, what the register file holds.
#[test]
fn the_record_holds_every_store_and_register_write() {
    let (path, source) = common::kernel("warpmasks");
    let values: [u32; 32] = std::array::from_fn(|l| (l as u32 * 7) % 5);
    let manifest = format!(
        "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 1024\n",
        list(values)
    );
    let mut records: Vec<Retired> = Vec::new();
    let p =
        assemble_and_observe(&source, &path, &manifest, |_, _, r| records.push(r.clone())).unwrap();
    let out = sgpu_sim::launch::dump(&p, "out").unwrap();
    let base = p.global.by_name("out").unwrap().base;
    let stores: Vec<_> = records.iter().flat_map(|r| r.stores().to_vec()).collect();
    assert_eq!(stores.len(), 64, "two 16-byte stores per lane");
    let mut covered = vec![false; out.len()];
    for s in &stores {
        assert_eq!(s.space, Space::Global);
        assert_eq!(s.len, 16);
        assert_eq!(
            s.byte_mask(),
            0xffff << (s.address % 32),
            "aligned 16 bytes"
        );
        let at = (s.address - base) as usize;
        assert_eq!(s.data(), &out[at..at + 16], "lane {}", s.lane);
        assert_eq!(at / 32, usize::from(s.lane));
        covered[at..at + 16].iter_mut().for_each(|c| *c = true);
    }
    assert!(covered.iter().all(|&c| c));
    // The last write of each lane's %r1 (tid) is the lane number.
    let tid = records
        .iter()
        .find(|r| {
            sgpu_isa::decode(r.word)
                .unwrap()
                .to_string()
                .starts_with("S2R")
        })
        .expect("an S2R reads %tid.x");
    assert_eq!(tid.regs.count, 1);
    let (_, values) = tid.regs.iter().next().unwrap();
    assert_eq!(values, &std::array::from_fn(|l| l as u32));
    assert!(!tid.nondeterministic);
    // Every record says where the warp goes: the next record's pc, or nowhere at the end.
    for pair in records.windows(2) {
        assert_eq!(pair[0].next.map(|n| n.0), Some(pair[1].pc));
        assert_eq!(pair[0].next.map(|n| n.1), Some(pair[1].active));
    }
    assert_eq!(records.last().unwrap().next, None);
}

/// Surface stores are in the record too: each lane's element, at the surface's address in
/// global memory, and together they are the surface's final bytes.
#[test]
fn surface_stores_are_in_the_record() {
    let (path, source) = common::kernel("blend");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = common::read(&root.join("examples/blend.toml"));
    let mut stores = Vec::new();
    let p = assemble_and_observe(&source, &path, &manifest, |_, _, r| {
        stores.extend(r.stores().iter().copied())
    })
    .unwrap();
    let out = sgpu_sim::launch::dump(&p, "out").unwrap();
    assert_eq!(stores.len(), 8, "one 4-byte element per pixel");
    let base = stores.iter().map(|s| s.address).min().unwrap();
    let mut image = vec![0u8; out.len()];
    for s in &stores {
        assert_eq!((s.space, s.len), (Space::Global, 4));
        let at = (s.address - base) as usize;
        image[at..at + 4].copy_from_slice(s.data());
    }
    assert_eq!(image, out);
}

#[test]
fn a_partial_store_has_a_partial_byte_mask() {
    let s = sgpu_sim::record::Store {
        address: 0x1006,
        len: 2,
        ..Default::default()
    };
    assert_eq!(s.byte_mask(), 0b1100_0000);
    let s = sgpu_sim::record::Store {
        address: 0x1008,
        len: 8,
        ..Default::default()
    };
    assert_eq!(s.byte_mask(), 0xff00);
    let s = sgpu_sim::record::Store {
        address: 0x1010,
        len: 16,
        ..Default::default()
    };
    assert_eq!(s.byte_mask(), 0xffff_0000);
}

/// A harness's memory system: the model's own, every access also written down, as a
/// co-simulation would watch them (or serve them from the RTL's memory).
struct Watch<'m> {
    inner: sgpu_sim::memory::Memories<'m>,
    log: Vec<(bool, Space, u64, Vec<u8>)>,
}

impl sgpu_sim::memory::Memory for Watch<'_> {
    fn read(&mut self, at: sgpu_sim::memory::Access, out: &mut [u8]) -> Result<(), Cause> {
        self.inner.read(at, out)?;
        self.log.push((false, at.space, at.address, out.to_vec()));
        Ok(())
    }
    fn write(&mut self, at: sgpu_sim::memory::Access, data: &[u8]) -> Result<(), Cause> {
        self.log.push((true, at.space, at.address, data.to_vec()));
        self.inner.write(at, data)
    }
    fn start_cta(&mut self, shared: usize, threads: usize, local: usize) {
        self.inner.start_cta(shared, threads, local);
    }
}

/// A harness that picks the warp to step (as a co-simulation follows the RTL) gets the same
/// results in another order: here always the highest-numbered ready warp, CTAs last first.
/// Its own memory system sees every access.
#[test]
fn ctas_step_in_the_order_the_caller_chooses() {
    use sgpu_sim::cta::{Cta, Grid};
    let input: Vec<u32> = (0..512u32)
        .map(|i| i.wrapping_mul(2654435761) >> 12)
        .collect();
    let manifest = format!(
        "grid = [2]\nblock = [256]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 8\n",
        list(&input)
    );
    let (path, source) = common::kernel("reduce");
    let program = common::load(&source, &path);
    let mut p = sgpu_sim::launch::prepare(&manifest, std::path::Path::new("."), &program).unwrap();
    let kernel = program.function(&p.launch.kernel).unwrap();
    let shape = p.launch.check(kernel).unwrap();
    let out_base = p.global.by_name("out").unwrap().base;
    let mut watch = Watch {
        inner: sgpu_sim::memory::Memories::new(&mut p.global, &p.launch.params, &program.constants),
        log: Vec::new(),
    };
    let mut g = Grid {
        program: &program,
        memory: &mut watch,
        surfaces: &p.surfaces,
        grid: p.launch.grid,
        block: p.launch.block,
        clock: 0,
    };
    let mut record = Retired::default();
    let mut orders = Vec::new();
    for x in [1, 0] {
        let mut cta = Cta::new(kernel, &shape, [x, 0, 0], &mut g);
        let mut first_steps = Vec::new();
        while !cta.finished() {
            let ready = cta.ready();
            assert_ne!(ready, 0, "CTA {x} deadlocked");
            let warp = 31 - ready.leading_zeros() as usize;
            cta.step(warp, &mut g, &mut record).unwrap();
            if first_steps.len() < 3 {
                first_steps.push(warp);
            }
        }
        orders.push(first_steps);
    }
    assert_eq!(orders[0], [7, 7, 7], "the highest warp ran first");
    // Stepping a warp that cannot issue is the harness's error, not a trap of the kernel.
    let mut cta = Cta::new(kernel, &shape, [0, 0, 0], &mut g);
    for warp in [8, 99] {
        let e = cta.step(warp, &mut g, &mut record).unwrap_err();
        assert_eq!(e.cause, Cause::NotReady { warp: warp as u32 });
    }
    // The harness saw every input word read from global memory, shared memory used for the
    // reduction, and the two sums written to `out`.
    let log = std::mem::take(&mut watch.log);
    let global_reads = log.iter().filter(|a| !a.0 && a.1 == Space::Global).count();
    assert_eq!(global_reads, 512);
    assert!(log.iter().any(|a| a.0 && a.1 == Space::Shared));
    let sums: Vec<(u64, Vec<u8>)> = log
        .iter()
        .filter(|a| a.0 && a.1 == Space::Global)
        .map(|a| (a.2 - out_base, a.3.clone()))
        .collect();
    assert_eq!(sums.len(), 2, "{sums:?}");
    let want: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}
