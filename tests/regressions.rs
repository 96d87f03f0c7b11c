//! Programs that once ran wrong, each run at every optimisation level (`-O1` to `-O3`
//! against `-O0`, memory and traps alike) and checked against a Rust computation of what PTX
//! says they do. Their kernels are in `tests/kernels/regress/`, but for those the
//! co-simulation runs too (`tests/kernels/`).

mod common;

use common::{at_every_level, list, u32s, u64s};

/// The manifest of a one-CTA launch of `threads` threads of a kernel `(in, out)`: `in` holds
/// `values` as `kind` elements, `out` has `out_bytes`.
fn in_out(threads: usize, kind: &str, values: &[u64], out_bytes: usize) -> String {
    // TOML's integers are signed 64-bit: a u64 goes as its two's complement.
    let values = values.iter().map(|&x| x as i64);
    format!(
        "block = [{threads}]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\n{kind} = [{}]\n[buffers.out]\nsize = {out_bytes}\n",
        list(values)
    )
}

/// Runs `tests/kernels/regress/NAME.ptx` at every level; it must finish.
/// Pairs of words as the input buffer lists them, one after the other.
fn flat(pairs: &[(u32, u32)]) -> Vec<u64> {
    pairs
        .iter()
        .flat_map(|&(a, b)| [a.into(), b.into()])
        .collect()
}

fn run(name: &str, manifest: &str) -> sgpu_sim::launch::Prepared {
    let (p, ran) = at_every_level(&format!("regress/{name}"), manifest);
    ran.unwrap_or_else(|t| panic!("{name}: {t}"));
    p
}

#[test]
fn a_guarded_carry_write_keeps_the_carry_where_it_does_not_run() {
    let pairs: [(u32, u32); 5] = [
        (0xffff_ffff, 1),
        (0, 1),
        (0, 0xffff_ffff),
        (0xffff_ffff, 0xffff_ffff),
        (7, 9),
    ];
    let values = flat(&pairs);
    let out = u32s(&run("carry_guard", &in_out(5, "u32", &values, 40)), "out");
    let carry = |a: u32, b: u32| u32::from(a.checked_add(b).is_none());
    let want: Vec<u32> = pairs
        .iter()
        .flat_map(|&(a, b)| match a {
            0 => [carry(b, 0), carry(b, 5)],
            _ => [carry(a, b), carry(a, b)],
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn a_carry_crosses_a_label_on_both_paths() {
    let out = u32s(
        &run("carry_label", &in_out(4, "u32", &[0xffff_ffff, 1], 16)),
        "out",
    );
    // Odd threads branch over the second add and keep the first add's carry (1); even ones
    // run it, and 0xffffffff + 0 carries nothing.
    assert_eq!(out, [0, 1, 0, 1]);
}

#[test]
fn sixty_four_bit_comparisons_combine_with_a_predicate() {
    let cases: [(u32, u32); 6] = [
        (0xffff_ffff, 0),
        (0xffff_ffff, 1),
        (0, 0),
        (0, 1),
        (0x8000_0000, 1),
        (0xffff_fffe, 0),
    ];
    let values = flat(&cases);
    let out = u32s(&run("setp64_bop", &in_out(6, "u32", &values, 96)), "out");
    let want: Vec<u32> = cases
        .iter()
        .flat_map(|&(hi, p)| {
            let x = u64::from(hi) << 32;
            let ls = x <= (-7i64) as u64;
            let lt = (x as i64) < -7;
            let p = p != 0;
            [ls ^ p, ls | p, lt & p, !lt & p].map(u32::from)
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn cnot_of_64_bits_tests_and_writes_both_words() {
    let values = [0, 1, 1 << 32, u64::MAX, 1 << 63, 0xffff_ffff];
    let out = u64s(&run("cnot64", &in_out(6, "u64", &values, 48)), "out");
    let want: Vec<u64> = values.iter().map(|&x| u64::from(x == 0)).collect();
    assert_eq!(out, want);
}

#[test]
fn a_narrow_load_into_a_64_bit_register_extends_into_the_high_word() {
    let bytes: [u8; 16] = [
        0xff, 0x80, 0x34, 0x92, 0x00, 0x80, 0, 0, 0xef, 0xbe, 0xad, 0xde, 0x01, 0x00, 0x00, 0x80,
    ];
    let manifest = in_out(1, "u8", &bytes.map(u64::from), 80);
    let out = u64s(&run("ld_wide_register", &manifest), "out");
    let s = |x: i64| x as u64;
    let want = [
        0xff,                            // u8
        s(-128),                         // s8
        0x9234,                          // u16
        s(-32768),                       // s16
        0xdead_beef,                     // u32
        s(-0x7fff_ffff),                 // s32
        0x80,                            // b8
        s(0xdead_beefu32 as i32 as i64), // v2.s32
        s(-0x7fff_ffff),
        u64::MAX, // stored before the loads, not written since
    ];
    assert_eq!(out, want);
}

#[test]
fn barriers_complete_when_the_last_warp_missing_exits() {
    let manifest = "block = [128]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 512\n";
    let (p, ran) = at_every_level("barrier_exit", manifest);
    ran.unwrap_or_else(|t| panic!("barrier_exit: {t}"));
    let want: Vec<u32> = (0..128).map(|t| if t < 64 { 32 } else { 1040 }).collect();
    assert_eq!(u32s(&p, "out"), want);
}

#[test]
fn thirty_two_bit_addresses_wrap_at_two_to_the_32() {
    let manifest = "params = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 28\n";
    let (p, ran) = at_every_level("address32", manifest);
    ran.unwrap_or_else(|t| panic!("address32: {t}"));
    let out = u32s(&p, "out");
    assert_eq!(out, [102, 102, 202, 202, 102, 102, 102]);
}

/// f(n, x) = n == 0 ? x : f(n - 1, x + n) ^ n.
fn f(n: u32, x: u32) -> u32 {
    match n {
        0 => x,
        _ => f(n - 1, x.wrapping_add(n)) ^ n,
    }
}

#[test]
fn recursion_behind_a_conditional_branch_returns_to_its_caller() {
    for depth in [1, 2, 3, 5, 9] {
        let m = |kernel: &str| {
            format!(
                "kernel = \"{kernel}\"\nblock = [64]\nparams = [{{ buffer = \"in\" }}, \
                 {{ buffer = \"out\" }}]\n[buffers.in]\nu32 = [{depth}]\n[buffers.out]\nsize = 256\n"
            )
        };
        let out = u32s(&run("recursion", &m("uniform")), "out");
        let want: Vec<u32> = (0..64).map(|t| f(depth, t)).collect();
        assert_eq!(out, want, "uniform, n = {depth}");
        let out = u32s(&run("recursion", &m("divergent")), "out");
        let want: Vec<u32> = (0..64)
            .map(|t| if t % 2 == 0 { 7 } else { f(t % depth, t) })
            .collect();
        assert_eq!(out, want, "divergent, n = tid % {depth}");
    }
}

#[test]
fn warp_operations_of_a_full_mask_run_in_a_partial_warp() {
    for threads in [1u32, 20, 31, 45] {
        let m = format!(
            "block = [{threads}]\nparams = [{{ buffer = \"out\" }}]\n[buffers.out]\nsize = {}\n",
            12 * threads
        );
        let out = u32s(&run("vote_partial", &m), "out");
        let want: Vec<u32> = (0..threads)
            .flat_map(|t| {
                // The threads of t's warp that exist.
                let warp = (t / 32 * 32)..threads.min(t / 32 * 32 + 32);
                let ballot = warp
                    .clone()
                    .filter(|u| u % 2 == 1)
                    .fold(0, |b, u| b | 1 << (u % 32));
                [ballot, 1, u32::from(warp.count() > 1)]
            })
            .collect();
        assert_eq!(out, want, "{threads} threads");
    }
}

#[test]
fn frames_start_aligned_to_what_they_hold() {
    let manifest = "block = [40]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 320\n";
    let out = u32s(&run("frames", manifest), "out");
    let want: Vec<u32> = (0..40u32)
        .flat_map(|t| {
            let sum = 4 * t + 10;
            let xor = (0..37u32).fold(0, |x, i| x ^ t.wrapping_mul(i * 7 + 3));
            [3 * sum, xor]
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn static_shared_memory_is_laid_out_over_the_module_and_the_extern_array_after_it() {
    let values: [u64; 4] = [1 << 40, 20, 300, 4000];
    let manifest = format!(
        "shared = 16\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu64 = [{}]\n[buffers.out]\nsize = 24\n",
        list(values)
    );
    let out = u64s(&run("shared_layout", &manifest), "out");
    assert_eq!(out, [values.iter().sum(), values[0], values[3]]);
}

/// `bfind.u64` (with `.shiftamt`, the left shift that brings the bit to the top).
fn bfind(x: u64, shiftamt: bool) -> u32 {
    match (x, shiftamt) {
        (0, _) => u32::MAX,
        (_, false) => 63 - x.leading_zeros(),
        (_, true) => x.leading_zeros(),
    }
}

#[test]
fn float_classes_and_64_bit_bfind_run_on_the_integer_units() {
    let values: [u64; 16] = [
        0,
        1,
        1 << 63,
        u64::MAX,
        1 << 32,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x0000_0000_7f80_0000,
        0x0000_0000_007f_ffff,
        0x0000_0000_0080_0000,
        0x0000_0000_ff80_0001,
        0xfff0_0000_0000_0000,
        0x0010_0000_0000_0000,
        0x8000_0000_0000_0001,
        0xffff_ffff_7f7f_ffff,
    ];
    let manifest = in_out(16, "u64", &values, 16 * 20);
    let out = u32s(&run("classify", &manifest), "out");
    for (i, &x) in values.iter().enumerate() {
        let f = f32::from_bits(x as u32);
        let d = f64::from_bits(x);
        let class = |finite: bool, inf: bool, nan: bool, normal: bool, sub: bool| {
            [finite, inf, !nan, nan, normal, sub]
                .iter()
                .enumerate()
                .fold(0, |bits, (k, &b)| bits | u32::from(b) << k)
        };
        // PTX counts both zeros as normal.
        let (f_normal, d_normal) = (f.is_normal() || f == 0.0, d.is_normal() || d == 0.0);
        let classes = class(
            f.is_finite(),
            f.is_infinite(),
            f.is_nan(),
            f_normal,
            f.is_subnormal(),
        ) | class(
            d.is_finite(),
            d.is_infinite(),
            d.is_nan(),
            d_normal,
            d.is_subnormal(),
        ) << 8;
        let signed = if (x as i64) < 0 { !x } else { x };
        let want = [
            classes,
            bfind(x, false),
            bfind(signed, false),
            bfind(x, true),
            bfind(signed, true),
        ];
        assert_eq!(out[5 * i..5 * i + 5], want, "{x:#018x}");
    }
}

#[test]
fn a_subtraction_reads_a_zero_carry_as_a_borrow() {
    let pairs: [(u32, u32); 4] = [(10, 3), (0, 0), (5, 0xffff_ffff), (0xffff_ffff, 1)];
    let values = flat(&pairs);
    let out = u32s(
        &run("subc_after_zero_add", &in_out(4, "u32", &values, 32)),
        "out",
    );
    let want: Vec<u32> = pairs
        .iter()
        .flat_map(|&(a, b)| [a.wrapping_sub(b).wrapping_sub(1), a.wrapping_add(b)])
        .collect();
    assert_eq!(out, want);
}

#[test]
fn a_loop_counted_by_a_divergent_carry_is_not_uniform() {
    let manifest = "block = [32]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 128\n";
    let out = u32s(&run("divergent_carry_loop", manifest), "out");
    let want: Vec<u32> = (0..32).map(|t| u32::from(t < 16)).collect();
    assert_eq!(out, want);
}

#[test]
fn predicate_logic_takes_immediate_operands() {
    let manifest = "block = [6]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 24\n";
    let out = u32s(&run("pred_immediates", manifest), "out");
    // xor -1, xor 0, and 1, and 0, or 1, or 0, not, xor -1 (from the left).
    let want = |p: bool| match p {
        true => 2 | 4 | 16 | 32,
        false => 1 | 16 | 64 | 128,
    };
    assert_eq!(out, (0..6).map(|t| want(t < 3)).collect::<Vec<u32>>());
}
