//! `hw/sgpu_icache.sv`, core v2's instruction cache (docs/adr/0008-core-v2-pipeline.md,
//! "Fetch"), built with Verilator and run in a closed loop by its testbench
//! (rtl-tests/tb/icache_tb.cpp): warps walk a code image (in order, with jumps) one lookup a
//! cycle, a memory answers the fills in order after a random latency with one line of the
//! code failing, and now and then a flush brings other code at another address. The
//! testbench checks every answer (the word of the code in use on a hit, the failing line
//! never hitting and then answering with an error, fills of whole lines at the code's
//! address, every miss served within 2,000 cycles); this test runs it on code that fits the
//! cache, code that thrashes it, one warp and 32, and checks that each run exercised hits,
//! misses, fills, errors and flushes. `RTL_TEST_CYCLES=N` runs N cycles a configuration
//! (100,000 by default). Verilator (5.006 or later) must be installed; without it the test
//! fails and says so.

mod common;

use common::{count_from_env, run, testbench_with};

const RTL: [&str; 3] = [
    "hw/sgpu_ram.sv",
    "hw/sgpu_round_robin.sv",
    "hw/sgpu_icache.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/icache_tb.cpp";

#[test]
fn lookups_answer_with_the_code_in_use() {
    let cycles = count_from_env("RTL_TEST_CYCLES", 100_000);
    // (warps, cache lines, lines of code)
    for (i, (warps, lines, code)) in [(8, 64, 48), (8, 64, 256), (1, 16, 40), (32, 64, 100)]
        .into_iter()
        .enumerate()
    {
        let exe = testbench_with(
            "sgpu_icache",
            &RTL,
            TESTBENCH,
            &[("WARPS", warps), ("LINES", lines)],
        );
        let seed = 0x4528_21e6_38d0_1377_u64 ^ i as u64;
        let out = run(&exe, &format!("{seed} {cycles} {code} {warps}\n"));
        assert_eq!(out.len(), 1, "one summary line: {out:?}");
        let f: Vec<u64> = out[0]
            .split_whitespace()
            .map(|v| v.parse().expect("a count"))
            .collect();
        let [lookups, hits, misses, errors, fills, flushes, longest] = f[..] else {
            panic!("seven counts: {}", out[0]);
        };
        println!(
            "{warps} warps, {lines} lines, {code} lines of code: {lookups} lookups, {hits} hits, \
             {misses} misses, {errors} errors, {fills} fills, {flushes} flushes, longest wait \
             {longest} cycles"
        );
        // Every lookup answered, but for those of the last two cycles.
        assert!(
            lookups - (hits + misses + errors) <= 2,
            "lookups unanswered"
        );
        assert!(
            hits > lookups / 8 && misses > 0 && errors > 0 && fills > 0 && flushes > 0,
            "too little exercised"
        );
    }
}
