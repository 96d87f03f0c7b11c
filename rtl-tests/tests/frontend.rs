//! `hw/sgpu_frontend.sv`, core v2's front end (fetch, instruction cache, instruction buffers
//! and the decode of their heads; docs/adr/0008-core-v2-pipeline.md, "Fetch"), built with
//! Verilator and run in a closed loop by its testbench (rtl-tests/tb/frontend_tb.cpp): a
//! back end plays the warp table and the issue, sending each warp along a random path
//! through the code (redirected after every control instruction, at its stop pc, and after
//! a fault at the code's end or on a line the memory fails), popping announced heads, and
//! now and then halting a warp. The testbench checks that every instruction announced and
//! popped is the next on its warp's path, that nothing past a control instruction, a stop
//! pc or a fault is fetched, that faults are shown as what they are, and that no warp waits
//! 3,000 cycles; this test runs it at 1, 8 and 32 warps, on code that fits the cache and
//! code that thrashes it, and checks that each run exercised every way a path ends. The
//! control opcodes are the table's unit CONTROL. `RTL_TEST_CYCLES=N` runs N cycles a
//! configuration (100,000 by default). Verilator (5.006 or later) must be installed;
//! without it the test fails and says so.

mod common;

use common::{control_and_other_opcodes, count_from_env, run, testbench_with, FRONTEND_RTL};

const TESTBENCH: &str = "rtl-tests/tb/frontend_tb.cpp";

/// The start of the testbench's input: the control opcodes, then the others, each list ended
/// by 256.
fn opcodes() -> String {
    let (control, other) = control_and_other_opcodes();
    assert!(
        control.len() >= 5 && other.len() >= 50,
        "the table's opcodes"
    );
    let list = |ops: &[u8]| ops.iter().map(|op| format!("{op} ")).collect::<String>();
    format!("{}256 {}256 ", list(&control), list(&other))
}

#[test]
fn each_warp_fetches_its_path_and_nothing_past_it() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 100_000);
    // (warps, cache lines, lines of code)
    for (i, (warps, lines, code)) in [(8, 64, 48), (8, 64, 256), (1, 16, 40), (32, 64, 100)]
        .into_iter()
        .enumerate()
    {
        let exe = testbench_with(
            "sgpu_frontend",
            &FRONTEND_RTL,
            TESTBENCH,
            &[("WARPS", warps), ("LINES", lines)],
        );
        let seed = 0x1319_8a2e_0370_7344_u64 ^ i as u64;
        let out = run(
            &exe,
            &format!("{}{seed} {cycles} {code} {warps}\n", opcodes()),
        );
        assert_eq!(out.len(), 1, "one summary line: {out:?}");
        let f: Vec<u64> = out[0]
            .split_whitespace()
            .map(|v| v.parse().expect("a count"))
            .collect();
        let [pops, redirects, controls, stops, faults, mem_faults, halts, longest] = f[..] else {
            panic!("eight counts: {}", out[0]);
        };
        println!(
            "{warps} warps, {lines} lines, {code} lines of code, {cycles} cycles: {pops} pops, \
             {redirects} redirects ({controls} after control instructions, {stops} at stop \
             pcs, {faults} faults at the end, {mem_faults} on the failing line), {halts} \
             halts, longest wait for a head {longest} cycles"
        );
        assert!(
            pops > cycles / 20
                && controls > 100
                && stops > 10
                && faults > 0
                && mem_faults > 0
                && halts > 0,
            "too little exercised: {}",
            out[0]
        );
    }
}
