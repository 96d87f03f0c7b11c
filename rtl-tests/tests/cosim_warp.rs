//! The warp operations' kernels on the Verilated core in lock-step with the golden model
//! (src/cosim.rs), at the default 8 lanes and at 1 and 32: every retired warp instruction,
//! every register and predicate written and the final memory must agree.
//!
//! - tests/kernels/shuffle.ptx: a butterfly reduction by shfl.down and a ballot.
//! - tests/kernels/shfl_lanes.ptx: shfl.sync in its four modes with lane, clamp and segment
//!   operands of every shape (32 and more, all ones, high bits set, random), and its
//!   predicate.
//! - tests/kernels/warpmasks.ptx: vote, redux, match and shfl over member masks smaller than
//!   the warp, on values that repeat so that lanes match.
//! - tests/kernels/votes.ptx: vote.sync on constant and register predicates, member masks
//!   immediate and in registers, in a CTA of 24 threads (a partial warp).
//! - tests/kernels/reduxmatch.ptx: redux.sync's operations and match.any and match.all.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

mod common;
#[path = "../../tests/common/shfl_operands.rs"]
mod shfl_operands;

use common::Rng;
use rtl_tests::cosim::{Options, Report};

/// `kernel` of tests/kernels run as `manifest` launches it on a core of `lanes` lanes: the
/// run's report, or a panic naming the mismatch.
fn agree(kernel: &str, manifest: &str, lanes: u32) -> Report {
    let options = Options {
        lanes,
        ..Options::default()
    };
    let ptx = format!("tests/kernels/{kernel}.ptx");
    let report = common::cosim_file(&ptx, manifest, &options)
        .unwrap_or_else(|f| panic!("{kernel} at {lanes} lanes: {f:?}"));
    assert!(report.retired > 0, "{kernel}: {report:?}");
    report
}

/// A CTA of `block` threads (and `grid` of them) with `in` holding `words` and `out` of
/// `out_bytes` bytes.
fn in_out(grid: u32, block: u32, words: &[u32], out_bytes: usize) -> String {
    let words: Vec<String> = words.iter().map(|w| format!("{w:#x}")).collect();
    format!(
        "grid = [{grid}]\nblock = [{block}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {out_bytes}\n",
        words.join(", ")
    )
}

const LANES: [u32; 3] = [8, 1, 32];

#[test]
fn shuffles_and_ballots_agree_at_8_1_and_32_lanes() {
    let mut rng = Rng::new(0x3c6e_f372_fe94_f82b);
    for lanes in LANES {
        let words: Vec<u32> = (0..64).map(|_| rng.word() as u32).collect();
        let report = agree("shuffle", &in_out(2, 32, &words, 16), lanes);
        println!("shuffle at {lanes} lanes: {report:?}");
    }
}

/// The edge operand sets of tests/kernels/shfl_lanes.operands (tests/golden_model.rs checks
/// the model on them against PTX's definition).
fn shfl_edge_operands() -> Vec<[u32; 8]> {
    shfl_operands::parse(&common::source("tests/kernels/shfl_lanes.operands"))
}

/// shfl_lanes's operands: the edge sets (lane and clamp values of 32 and more, all ones,
/// clamps with high bits set and segment masks), then random ones.
#[test]
fn shuffle_modes_agree_on_every_operand_shape() {
    let mut sets = shfl_edge_operands();
    let mut rng = Rng::new(0xa54f_f53a_5f1d_36f1);
    sets.extend((0..4).map(|_| std::array::from_fn(|_| rng.word() as u32)));
    for lanes in LANES {
        for ops in &sets {
            agree("shfl_lanes", &in_out(1, 32, ops, 640), lanes);
        }
    }
}

#[test]
fn member_masks_agree_at_8_1_and_32_lanes() {
    let mut rng = Rng::new(0x510e_527f_ade6_82d1);
    for lanes in LANES {
        // Few distinct values, so that lanes match; then all equal; then one differing.
        let mut cases: Vec<[u32; 32]> = vec![std::array::from_fn(|_| 3)];
        cases.push(std::array::from_fn(|l| if l == 5 { 4 } else { 3 }));
        cases.push(std::array::from_fn(|_| rng.word() as u32 % 4));
        cases.push(std::array::from_fn(|l| {
            if l >= 16 {
                7
            } else {
                rng.word() as u32
            }
        }));
        for values in &cases {
            agree("warpmasks", &in_out(1, 32, values, 1024), lanes);
        }
    }
}

#[test]
fn votes_redux_and_match_agree_at_8_1_and_32_lanes() {
    for lanes in LANES {
        agree(
            "votes",
            "block = [24]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 768\n",
            lanes,
        );
        let report = agree(
            "reduxmatch",
            "grid = [2]\nblock = [32]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 1024\n",
            lanes,
        );
        println!("reduxmatch at {lanes} lanes: {report:?}");
    }
}
