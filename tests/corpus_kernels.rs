//! Real kernels from ../shared/corpus (LLVM's NVPTX output of CUDA code and of LLVM IR, and
//! ZLUDA's test kernels), assembled and run on the golden model, each checked against a plain
//! Rust computation of the same thing or ZLUDA's expected output.
//!
//! Every kernel of every file in `generated/clang16_cuda` and `generated/llc16_ll` runs here,
//! but for the `texsurf_all_*` files, whose kernels read textures, which sgpu does not have.
//!
//! Every launch here is also a co-simulation case: its manifest is kept in
//! `tests/launches/corpus/`, named for the file, kernel and content, and
//! `rtl-tests/tests/cosim_corpus.rs` runs each on the RTL in lock-step with the model. A
//! launch whose manifest is not there fails, saying how to write it:
//! `SGPU_RECORD_LAUNCHES=1 cargo test --test corpus_kernels` writes them (after removing the
//! folder, so that none is left that no launch here makes).

mod common;

use common::{assemble_and_run, list, u32s, u64s, xorshift, Both};
use sgpu_isa::Geom;
use sgpu_sim::launch::Prepared;
use sgpu_sim::trap::{Axis, Fault};
use sgpu_sim::{Cause, Trap};
use std::collections::HashMap;
use std::path::Path;

/// CUDA C compiled by clang-16 at -O0 and -O2.
const CUDA: &str = "generated/clang16_cuda";
/// LLVM IR compiled by llc-16.
const LL: &str = "generated/llc16_ll";

/// What output buffers hold before a run, so that a word a kernel must leave alone is seen to.
const SENTINEL: u32 = 0xa5a5_a5a5;

/// Where the launches' manifests are kept for the co-simulation.
const LAUNCHES: &str = "tests/launches/corpus";

/// A launch of the corpus file `path` (relative to the corpus) by `manifest`: its manifest is
/// in [`LAUNCHES`] as `FILE.KERNEL.HASH.toml` (the file's name with `/` as `~`, the hash of
/// the content), with a first line naming the file; written there with
/// `SGPU_RECORD_LAUNCHES` set, else required to be.
fn recorded(path: &str, manifest: &str) {
    let kernel = manifest
        .lines()
        .find_map(|l| l.strip_prefix("kernel = \""))
        .map_or("", |k| k.trim_end_matches('"'));
    let hash = manifest.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let name = format!(
        "{}.{kernel}.{:08x}.toml",
        path.replace('/', "~"),
        hash as u32
    );
    let at = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(LAUNCHES)
        .join(name);
    let text = format!("# ptx: {path}\n{manifest}");
    if std::env::var_os("SGPU_RECORD_LAUNCHES").is_some() {
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(&at, text).unwrap();
    } else {
        assert!(
            std::fs::read_to_string(&at).is_ok_and(|t| t == text),
            "{}: no such launch kept for the co-simulation; write it with \
             SGPU_RECORD_LAUNCHES=1 cargo test --test corpus_kernels",
            at.display()
        );
    }
}

/// Reads `file` of the corpus folder `dir`.
fn corpus_source(dir: &str, file: &str) -> String {
    common::read(&common::shared_dir().join("corpus").join(dir).join(file))
}

/// Assembles `FILE` of the corpus's CUDA kernels and runs it with `manifest`.
fn run(file: &str, manifest: &str) -> Prepared {
    let source = corpus_source(CUDA, file);
    recorded(&format!("{CUDA}/{file}"), manifest);
    assemble_and_run(&source, file, manifest).unwrap_or_else(|t| panic!("{file}: {t}"))
}

/// Assembles `file` of the corpus folder `dir` at -O3 and -O0 and loads both, to be run
/// several times (each launch runs both and compares them: [`common::Both`]).
fn load(dir: &str, file: &str) -> Both {
    common::load_both(&corpus_source(dir, file), &format!("{dir}/{file}"))
}

/// Runs `program` as `manifest` launches it: the state after, and the trap if it stopped on
/// one (the state then holds what it stored before).
fn launch(program: &Both, manifest: &str) -> (Prepared, Result<(), Trap>) {
    recorded(program.file(), manifest);
    program.launch(manifest, Path::new("."))
}

/// [`launch`] of a kernel that must finish.
fn finish(program: &Both, manifest: &str) -> Prepared {
    recorded(program.file(), manifest);
    program.finish(manifest, Path::new("."))
}

/// Runs ZLUDA's test kernel `NAME` (parameters `input` and `output`, one thread) on the
/// buffers `in` and `out` described by `buffers` (TOML).
fn zluda(name: &str, buffers: &str) -> Prepared {
    let file = format!("zluda/spirv_run/{name}.ptx");
    let source = common::read(&common::shared_dir().join("corpus").join(&file));
    let manifest = format!("params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n{buffers}");
    recorded(&file, &manifest);
    assemble_and_run(&source, &file, &manifest).unwrap_or_else(|t| panic!("{file}: {t}"))
}

fn dump_f32(p: &Prepared, name: &str) -> Vec<f32> {
    u32s(p, name).into_iter().map(f32::from_bits).collect()
}

/// f32 values as a manifest's `u32` array of their bits (exact, whatever the value).
fn f32_bits(v: &[f32]) -> String {
    list(v.iter().map(|x| x.to_bits()))
}

/// f64 values as a manifest's `u64` array of their bits (two's complement above 2^63 - 1).
fn f64_bits(v: &[f64]) -> String {
    list(v.iter().map(|x| x.to_bits() as i64))
}

/// `n` sentinel words, as a manifest's `u32` array.
fn sentinels(n: usize) -> String {
    list(std::iter::repeat_n(SENTINEL, n))
}

/// A float in [0, 1) from the top 24 bits of `r`.
fn unit(r: u64) -> f32 {
    (r >> 40) as f32 / (1u32 << 24) as f32
}

/// A finite f32 of random sign and mantissa with a binary exponent in -20..20.
fn wide_f32(r: u64) -> f32 {
    let exponent = 107 + (r >> 32) as u32 % 40;
    f32::from_bits(((r >> 63) as u32) << 31 | exponent << 23 | (r as u32 & 0x7f_ffff))
}

/// A finite f64 of random sign and mantissa with a binary exponent in -60..60.
fn wide_f64(r: u64) -> f64 {
    let exponent = 963 + (r >> 52) % 120;
    f64::from_bits((r >> 63) << 63 | exponent << 52 | (r & 0xf_ffff_ffff_ffff))
}

/// The line of `source` (1-based) holding `text`.
fn line_of(source: &str, text: &str) -> usize {
    1 + source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line holds {text}"))
}

#[test]
fn reduction_reduce_sum() {
    // reduce_sum(in, out, n): each CTA of 256 threads sums 512 elements (small integers, so
    // the sum is exact in any order), warp-synchronous at the end.
    let n = 2000usize;
    let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32).collect();
    let ctas = n.div_ceil(512);
    let manifest = format!(
        "kernel = \"reduce_sum\"\ngrid = [{ctas}]\nblock = [256]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ u32 = {n} }}]\n\
         [buffers.in]\nf32 = [{}]\n[buffers.out]\nsize = {}\n",
        list(input.iter().map(|x| format!("{x:.1}"))),
        4 * ctas
    );
    let p = run("reduction.sm80.O2.ptx", &manifest);
    let want: Vec<f32> = input.chunks(512).map(|c| c.iter().sum()).collect();
    assert_eq!(dump_f32(&p, "out"), want);
}

/// reduce_sum(in, out, n) of `file` on fractional values, where the order of the additions
/// shows: thread t of CTA c starts from in[512c + t] + in[512c + t + 256] (those below n),
/// then a shared-memory tree halves the 256 partial sums down to 64 with barriers, and the
/// first warp finishes without them (`volatile`, in lock-step: each step's loads before its
/// stores). 2,000 elements in 4 CTAs, the last one partial.
fn check_reduce_sum_order(file: &str) {
    let n = 2000usize;
    let mut next = xorshift(0x5eed);
    let input: Vec<f32> = (0..n).map(|_| unit(next()) * 200.0 - 100.0).collect();
    let (ctas, ntid) = (n.div_ceil(512), 256);
    let manifest = format!(
        "kernel = \"reduce_sum\"\ngrid = [{ctas}]\nblock = [{ntid}]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ u32 = {n} }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
        f32_bits(&input),
        4 * ctas
    );
    let p = run(file, &manifest);
    let want: Vec<u32> = (0..ctas)
        .map(|c| {
            let mut s: Vec<f32> = (0..ntid)
                .map(|t| {
                    let i = 2 * ntid * c + t;
                    let mut v = if i < n { input[i] } else { 0.0 };
                    if i + ntid < n {
                        v += input[i + ntid];
                    }
                    v
                })
                .collect();
            let mut stride = ntid / 2;
            while stride > 32 {
                for t in 0..stride {
                    s[t] += s[t + stride];
                }
                stride /= 2;
            }
            for off in [32, 16, 8, 4, 2, 1] {
                let old = s.clone();
                for t in 0..32 {
                    s[t] = old[t] + old[t + off];
                }
            }
            s[0].to_bits()
        })
        .collect();
    assert_eq!(u32s(&p, "out"), want, "{file}");
}

/// reduction.sm80.O0's reduce_sum (every variable in local memory, the warp-synchronous part
/// through generic volatile accesses), in the order of the additions (see
/// [`check_reduce_sum_order`]).
#[test]
fn reduction_o0_reduce_sum() {
    check_reduce_sum_order("reduction.sm80.O0.ptx");
}

/// reduction.sm80.O2's reduce_sum on fractional values, in the order of the additions (see
/// [`check_reduce_sum_order`]).
#[test]
fn reduction_reduce_sum_rounding_order() {
    check_reduce_sum_order("reduction.sm80.O2.ptx");
}

/// reduce_int_dynamic_smem(in, out, n) of `file`: each CTA stores in[tid] (0 from tid n on)
/// to `extern __shared__` memory, sums it with an interleaved tree (thread t adds element
/// t + s when t is a multiple of 2s, s = 1, 2, 4, ...), and thread 0 adds the sum to out[0]
/// atomically. 3 CTAs of 128 threads, with n below and above the block.
fn check_reduce_int_dynamic_smem(file: &str) {
    let mut next = xorshift(0xd15);
    let input: Vec<i32> = (0..300).map(|_| next() as i32).collect();
    for n in [100usize, 300] {
        let manifest = format!(
            "kernel = \"reduce_int_dynamic_smem\"\ngrid = [3]\nblock = [128]\nshared = 512\n\
             params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ u32 = {n} }}]\n\
             [buffers.in]\ns32 = [{}]\n[buffers.out]\nu32 = [7]\n",
            list(&input)
        );
        let p = run(file, &manifest);
        let sum = input[..n.min(128)]
            .iter()
            .fold(0u32, |a, &x| a.wrapping_add(x as u32));
        assert_eq!(
            u32s(&p, "out"),
            [7u32.wrapping_add(sum.wrapping_mul(3))],
            "{file}, n = {n}"
        );
    }
}

/// reduction.sm80.O0's reduce_int_dynamic_smem (see [`check_reduce_int_dynamic_smem`]): the
/// modulo test of the tree as `rem.u32`, the atomic add through a called function.
#[test]
fn reduction_o0_reduce_int_dynamic_smem() {
    check_reduce_int_dynamic_smem("reduction.sm80.O0.ptx");
}

/// reduction.sm80.O2's reduce_int_dynamic_smem (see [`check_reduce_int_dynamic_smem`]).
#[test]
fn reduction_reduce_int_dynamic_smem() {
    check_reduce_int_dynamic_smem("reduction.sm80.O2.ptx");
}

/// histogram256(data, n, bins) of `file`: shared-memory bins with atomics over a grid-stride
/// loop, merged into global ones.
fn check_histogram256(file: &str, grid: u32, block: u32) {
    let n = 5000usize;
    let data: Vec<u8> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let manifest = format!(
        "kernel = \"histogram256\"\ngrid = [{grid}]\nblock = [{block}]\n\
         params = [{{ buffer = \"data\" }}, {{ u32 = {n} }}, {{ buffer = \"bins\" }}]\n\
         [buffers.data]\nu8 = [{}]\n[buffers.bins]\nsize = 1024\n",
        list(&data)
    );
    let p = run(file, &manifest);
    let mut want = vec![0u32; 256];
    for &b in &data {
        want[usize::from(b)] += 1;
    }
    assert_eq!(u32s(&p, "bins"), want, "{file}");
}

/// histogram.sm80.O2's histogram256 (see [`check_histogram256`]).
#[test]
fn histogram_histogram256() {
    check_histogram256("histogram.sm80.O2.ptx", 3, 128);
}

/// histogram.sm80.O0's histogram256 (see [`check_histogram256`]; atomics through called
/// functions, generic addresses of shared memory), with 96 threads a CTA, so that the loops over the 256 bins take three
/// turns, the last one partial.
#[test]
fn histogram_o0_histogram256() {
    check_histogram256("histogram.sm80.O0.ptx", 2, 96);
}

/// float_atomics(sums, max, lock, in, n) of `file`: thread i < n adds in[i] to sums[0] with
/// an f32 atomic, takes the maximum of (int)in[i] into max[0] with an s32 atomic, then takes
/// a spin lock (atomicCAS on lock[0]) to add 1.0 to sums[1] and releases it (atomicExch).
/// One thread a CTA: sgpu has no independent thread scheduling (a warp runs its divergent
/// paths one after the other until they meet), so in one warp the thread that took the lock
/// waits at the loop's exit for the others, which spin on it for ever; in different warps
/// the kernel is fine. The values are multiples of 0.25 below
/// 2^20 in magnitude, so the sum is exact in any order; the 3 CTAs past n do nothing.
fn check_float_atomics(file: &str) {
    let n = 40usize;
    let input: Vec<f32> = (0..n)
        .map(|i| ((i * 37) % 41) as f32 * 0.75 - 20.25)
        .collect();
    let manifest = format!(
        "kernel = \"float_atomics\"\ngrid = [{}]\nblock = [1]\n\
         params = [{{ buffer = \"sums\" }}, {{ buffer = \"max\" }}, {{ buffer = \"lock\" }}, \
         {{ buffer = \"in\" }}, {{ u32 = {n} }}]\n\
         [buffers.sums]\nf32 = [10.0, 100.0]\n[buffers.max]\ns32 = [-1000]\n\
         [buffers.lock]\nu32 = [0]\n[buffers.in]\nu32 = [{}]\n",
        n + 3,
        f32_bits(&input)
    );
    let p = run(file, &manifest);
    let sum = input.iter().fold(10.0f32, |a, &x| a + x);
    assert_eq!(
        u32s(&p, "sums"),
        [sum.to_bits(), (100.0 + n as f32).to_bits()],
        "{file}"
    );
    let max = input.iter().map(|&x| x as i32).fold(-1000, i32::max);
    assert_eq!(u32s(&p, "max"), [max as u32], "{file}");
    assert_eq!(u32s(&p, "lock"), [0], "{file}");
}

/// histogram.sm80.O2's float_atomics (see [`check_float_atomics`]).
#[test]
fn histogram_float_atomics() {
    check_float_atomics("histogram.sm80.O2.ptx");
}

/// histogram.sm80.O0's float_atomics (see [`check_float_atomics`]): each atomic through a
/// called function.
#[test]
fn histogram_o0_float_atomics() {
    check_float_atomics("histogram.sm80.O0.ptx");
}

/// warp_reduce_shfl(in, out) of `file`: shfl.sync.down sums per warp, one atomic add per
/// warp.
fn check_warp_reduce_shfl(file: &str) {
    let input: Vec<u32> = (0..256u32).map(|i| i * 3 + 1).collect();
    let manifest = format!(
        "kernel = \"warp_reduce_shfl\"\ngrid = [2]\nblock = [128]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 4\n",
        list(&input)
    );
    let p = run(file, &manifest);
    assert_eq!(u32s(&p, "out"), [input.iter().sum::<u32>()], "{file}");
}

/// warp.sm80.O2's warp_reduce_shfl (see [`check_warp_reduce_shfl`]).
#[test]
fn warp_warp_reduce_shfl() {
    check_warp_reduce_shfl("warp.sm80.O2.ptx");
}

/// warp.sm80.O0's warp_reduce_shfl (see [`check_warp_reduce_shfl`]): each shuffle through a
/// called function, the offset in a register.
#[test]
fn warp_o0_warp_reduce_shfl() {
    check_warp_reduce_shfl("warp.sm80.O0.ptx");
}

/// warp_scan_and_bcast(in, scan, total) of `file`, on one CTA of four warps: an inclusive
/// scan of each warp's s32 values by shfl.sync.up (wrapping), less lane 0's (broadcast by
/// shfl.sync.idx), to scan[t]; and the warp's sum of the scanned values converted to f32,
/// by shfl.sync.bfly (16, 8, 4, 2, 1), to total[t]. The values are large, so the f32 sums
/// round and their order shows.
fn check_warp_scan_and_bcast(file: &str) {
    let mut next = xorshift(0x5ca9);
    let input: Vec<i32> = (0..128).map(|_| (next() as i32) >> 3).collect();
    let manifest = format!(
        "kernel = \"warp_scan_and_bcast\"\nblock = [128]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"scan\" }}, {{ buffer = \"total\" }}]\n\
         [buffers.in]\ns32 = [{}]\n[buffers.scan]\nsize = 512\n[buffers.total]\nsize = 512\n",
        list(&input)
    );
    let p = run(file, &manifest);
    let (mut scan, mut total) = (Vec::new(), Vec::new());
    for warp in input.chunks(32) {
        let inclusive: Vec<i32> = warp
            .iter()
            .scan(0i32, |acc, &x| {
                *acc = acc.wrapping_add(x);
                Some(*acc)
            })
            .collect();
        scan.extend(
            inclusive
                .iter()
                .map(|&s| s.wrapping_sub(inclusive[0]) as u32),
        );
        let mut v: Vec<f32> = inclusive.iter().map(|&s| s as f32).collect();
        for m in [16, 8, 4, 2, 1] {
            v = (0..32).map(|l| v[l] + v[l ^ m]).collect();
        }
        total.extend(v.iter().map(|x| x.to_bits()));
    }
    assert_eq!(u32s(&p, "scan"), scan, "{file}");
    assert_eq!(u32s(&p, "total"), total, "{file}");
}

/// warp.sm80.O2's warp_scan_and_bcast (see [`check_warp_scan_and_bcast`]).
#[test]
fn warp_warp_scan_and_bcast() {
    check_warp_scan_and_bcast("warp.sm80.O2.ptx");
}

/// warp.sm80.O0's warp_scan_and_bcast (see [`check_warp_scan_and_bcast`]): the shuffles
/// through called functions, the scan's additions under a divergent `if (lane >= d)`.
#[test]
fn warp_o0_warp_scan_and_bcast() {
    check_warp_scan_and_bcast("warp.sm80.O0.ptx");
}

/// vote_kernel(in, out, flags) of `file`, on one CTA of two warps: lane 0 of warp w stores
/// __ballot_sync(x > 0) to out[w] and __all_sync(x != 0) | __any_sync(x < 0) << 1 to
/// flags[w]; every thread stores __match_any_sync(x) to out[64 + t] and the warp's
/// __reduce_add_sync(x) to out[128 + t]. The first warp has zeros, negative values and
/// repeats; the second only positive ones, some repeated.
fn check_vote_kernel(file: &str) {
    let input: Vec<i32> = (0..64)
        .map(|t: i32| {
            if t < 32 {
                [0, 5, -3, 5, 7, 0, -3, i32::MIN, i32::MAX, 9][t as usize % 10]
                    .wrapping_add(t / 10 * 1000)
            } else {
                1 + t % 5 * 0x1000_0000
            }
        })
        .collect();
    let manifest = format!(
        "kernel = \"vote_kernel\"\nblock = [64]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ buffer = \"flags\" }}]\n\
         [buffers.in]\ns32 = [{}]\n[buffers.out]\nu32 = [{}]\n[buffers.flags]\nu32 = [{}]\n",
        list(&input),
        sentinels(192),
        sentinels(2)
    );
    let p = run(file, &manifest);
    let mut out = vec![SENTINEL; 192];
    let mut flags = Vec::new();
    for (w, warp) in input.chunks(32).enumerate() {
        out[w] = (0..32).filter(|&l| warp[l] > 0).map(|l| 1u32 << l).sum();
        let all = warp.iter().all(|&x| x != 0);
        let any = warp.iter().any(|&x| x < 0);
        flags.push(u32::from(all) | u32::from(any) << 1);
        let sum = warp.iter().fold(0i32, |a, &x| a.wrapping_add(x));
        for l in 0..32 {
            let same = (0..32).filter(|&k| warp[k] == warp[l]).map(|k| 1u32 << k);
            out[64 + 32 * w + l] = same.sum();
            out[128 + 32 * w + l] = sum as u32;
        }
    }
    assert_eq!(flags, [2, 1], "the inputs mean to cover both");
    assert_eq!(u32s(&p, "out"), out, "{file}");
    assert_eq!(u32s(&p, "flags"), flags, "{file}");
}

/// warp.sm80.O2's vote_kernel (see [`check_vote_kernel`]).
#[test]
fn warp_vote_kernel() {
    check_vote_kernel("warp.sm80.O2.ptx");
}

/// warp.sm80.O0's vote_kernel (see [`check_vote_kernel`]): the votes through called
/// functions.
#[test]
fn warp_o0_vote_kernel() {
    check_vote_kernel("warp.sm80.O0.ptx");
}

#[test]
fn matmul_tiled_square() {
    // matmul_tiled(A, B, C, M, N, K) with 16x16 tiles in shared memory, on 32x32 matrices of
    // small integers (exact in any order).
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 5) as f32 - 2.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 3) % 7) as f32 - 3.0).collect();
    let manifest = format!(
        "kernel = \"matmul_tiled\"\ngrid = [2, 2]\nblock = [16, 16]\n\
         params = [{{ buffer = \"a\" }}, {{ buffer = \"b\" }}, {{ buffer = \"c\" }}, {{ u32 = {n} }}, {{ u32 = {n} }}, {{ u32 = {n} }}]\n\
         [buffers.a]\nf32 = [{}]\n[buffers.b]\nf32 = [{}]\n[buffers.c]\nsize = {}\n",
        list(a.iter().map(|x| format!("{x:.1}"))),
        list(b.iter().map(|x| format!("{x:.1}"))),
        4 * n * n
    );
    let p = run("matmul_tiled.sm80.O2.ptx", &manifest);
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).map(|k| a[r * n + k] * b[k * n + c]).sum();
        }
    }
    assert_eq!(dump_f32(&p, "c"), want);
}

/// matmul_tiled(A, B, C, M, N, K) of `file` on a 20x19 by 19x37 product: partial tiles in
/// every dimension (the tiles padded with zeros, the threads outside C storing nothing: C
/// has 64 sentinel words past its end), on fractional values, each element of C the fused
/// multiply-adds of its row and column in order of k.
fn check_matmul_partial_tiles(file: &str) {
    let (m, n, k) = (20usize, 37usize, 19usize);
    let mut next = xorshift(0x3a7);
    let a: Vec<f32> = (0..m * k).map(|_| unit(next()) * 4.0 - 2.0).collect();
    let b: Vec<f32> = (0..k * n).map(|_| unit(next()) * 4.0 - 2.0).collect();
    let manifest = format!(
        "kernel = \"matmul_tiled\"\ngrid = [{}, {}]\nblock = [16, 16]\n\
         params = [{{ buffer = \"a\" }}, {{ buffer = \"b\" }}, {{ buffer = \"c\" }}, \
         {{ u32 = {m} }}, {{ u32 = {n} }}, {{ u32 = {k} }}]\n\
         [buffers.a]\nu32 = [{}]\n[buffers.b]\nu32 = [{}]\n[buffers.c]\nu32 = [{}]\n",
        n.div_ceil(16),
        m.div_ceil(16),
        f32_bits(&a),
        f32_bits(&b),
        sentinels(m * n + 64)
    );
    let p = run(file, &manifest);
    let mut want = vec![SENTINEL; m * n + 64];
    for r in 0..m {
        for c in 0..n {
            let dot = (0..k).fold(0f32, |acc, i| a[r * k + i].mul_add(b[i * n + c], acc));
            want[r * n + c] = dot.to_bits();
        }
    }
    assert_eq!(u32s(&p, "c"), want, "{file}");
}

/// matmul_tiled.sm80.O2's matmul_tiled with partial tiles (see
/// [`check_matmul_partial_tiles`]).
#[test]
fn matmul_tiled_partial_tiles() {
    check_matmul_partial_tiles("matmul_tiled.sm80.O2.ptx");
}

/// matmul_tiled.sm80.O0's matmul_tiled with partial tiles (see [`check_matmul_partial_tiles`]):
/// every variable in local memory, the tiles through generic addresses of shared memory.
#[test]
fn matmul_tiled_o0_partial_tiles() {
    check_matmul_partial_tiles("matmul_tiled.sm80.O0.ptx");
}

/// call_device_functions(out, n) of `file`: out[i] = write_out(make_pair(helper(i, i & 15,
/// ctable), recurse_fib(i & 7))): calls with scalar, pointer and by-value struct arguments
/// and results, recursion, generic loads from a .const table and from local memory.
fn check_call_device_functions(file: &str) {
    let n = 100u32;
    let manifest = format!(
        "kernel = \"call_device_functions\"\ngrid = [2]\nblock = [64]\n\
         params = [{{ buffer = \"out\" }}, {{ u32 = {n} }}]\n[buffers.out]\nsize = {}\n",
        4 * 128
    );
    let p = run(file, &manifest);
    let table = [1.0f32, 0.5, 0.25, 2.0, -1.0, 3.0, 0.125, 4.0];
    let fib = |k: u32| (0..k).fold((0u32, 1u32), |(a, b), _| (b, a + b)).0;
    let out = dump_f32(&p, "out");
    for i in 0..128u32 {
        let want = if i < n {
            let mut h = i as f32;
            for k in 0..(i & 15) {
                h = h.mul_add(table[(k % 8) as usize], 1.0);
            }
            (h + h) + (fib(i & 7) + 1) as f32
        } else {
            0.0
        };
        assert_eq!(
            out[i as usize].to_bits(),
            want.to_bits(),
            "{file}: thread {i}"
        );
    }
}

/// devfunc.sm80.O2's call_device_functions (see [`check_call_device_functions`]).
#[test]
fn devfunc_call_device_functions() {
    check_call_device_functions("devfunc.sm80.O2.ptx");
}

/// devfunc.sm80.O2.g's call_device_functions (see [`check_call_device_functions`]): the same
/// kernel with debug information (`.loc`, `.file`, labels around every function, DWARF
/// sections).
#[test]
fn devfunc_g_call_device_functions() {
    check_call_device_functions("devfunc.sm80.O2.g.ptx");
}

/// What divergent(in, out, n) computes for x = in[i]: for odd x, the sum of k * x for k
/// below x % 17 (C's remainder, so none for negative x); for even x divisible by 3, the
/// steps of the Collatz sequence from x until it is 1 or less (3x + 1 wrapping); for other
/// even x, by x & 7: -x, x * x, x ^ 0x5a5a, or clz(x) + popc(x). All in wrapping 32 bits.
fn divergent(x: i32) -> i32 {
    if x & 1 == 1 {
        (0..x % 17).fold(0i32, |acc, k| acc.wrapping_add(k.wrapping_mul(x)))
    } else if x % 3 == 0 {
        let (mut v, mut steps) = (x, 0);
        while v > 1 {
            v = if v & 1 == 1 {
                v.wrapping_mul(3).wrapping_add(1)
            } else {
                v / 2
            };
            steps += 1;
        }
        steps
    } else {
        match x & 7 {
            0 => x.wrapping_neg(),
            2 => x.wrapping_mul(x),
            4 => x ^ 0x5a5a,
            _ => (x.leading_zeros() + x.count_ones()) as i32,
        }
    }
}

/// divergent(in, out, n) of `file` (see [`divergent`]): branches, a switch and two loops a
/// thread at a time, so every warp diverges, on 150 values in 3 CTAs of 64 threads (the
/// last 42 threads store nothing): each branch's edge cases, then random values of every
/// magnitude.
fn check_divergent(file: &str) {
    let mut input = vec![
        1,
        -1,
        3,
        17,
        33,
        -33,
        35,
        i32::MAX,
        i32::MIN + 1,
        0,
        6,
        12,
        -6,
        54,
        1_000_002,
        2_147_483_646,
        8,
        -16,
        0x4000_0000,
        i32::MIN,
        2,
        10,
        0x1_0002,
        -14,
        4,
        20,
        -4,
        14,
        -2,
        -10,
    ];
    let mut next = xorshift(0xd1e);
    while input.len() < 150 {
        let r = next();
        input.push((r as i32) >> (r >> 59));
    }
    let n = input.len();
    let manifest = format!(
        "kernel = \"divergent\"\ngrid = [3]\nblock = [64]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ u32 = {n} }}]\n\
         [buffers.in]\ns32 = [{}]\n[buffers.out]\nu32 = [{}]\n",
        list(&input),
        sentinels(192)
    );
    let p = run(file, &manifest);
    let mut want: Vec<u32> = input.iter().map(|&x| divergent(x) as u32).collect();
    want.resize(192, SENTINEL);
    assert_eq!(u32s(&p, "out"), want, "{file}");
}

/// divergent.sm80.O2's divergent (see [`check_divergent`]).
#[test]
fn divergent_divergent() {
    check_divergent("divergent.sm80.O2.ptx");
}

/// divergent.sm80.O0's divergent (see [`check_divergent`]): every variable in local memory,
/// clz and popc through called functions.
#[test]
fn divergent_o0_divergent() {
    check_divergent("divergent.sm80.O0.ptx");
}

/// float_math(in, out, out64, n) of `file`: for x = in[i], y = sqrt(|x|) + ex2(x) +
/// lg2(x + 2) + fma(sin x, cos x, 1 / (x + 1.5)) (approximate ex2, lg2, sin and cos),
/// out[i] = x > 0.5 ? y : min(y, x) / 3, and out64[i] = fma((double)out[i], 0.001,
/// (double)(long)x) + i in f64 (the f64 runtime). The approximate functions are checked
/// within a bound; where they cannot matter (1 / 0 is infinite, lg2 of 0 or of a negative
/// value is infinite or NaN and min takes x) the result is exact, and out64 is checked bit
/// for bit from out. 45 values in [-3, 3] in 2 CTAs of 32 threads.
fn check_float_math(file: &str) {
    let mut input = vec![
        -3.0f32,
        -2.0,
        -1.5,
        -1.0,
        -0.25,
        0.0,
        0.25,
        0.5,
        0.500_000_06,
        0.75,
        1.0,
        1.5,
        2.0,
        2.5,
        3.0,
    ];
    let mut next = xorshift(0xf1);
    while input.len() < 45 {
        input.push(unit(next()) * 6.0 - 3.0);
    }
    let n = input.len();
    let manifest = format!(
        "kernel = \"float_math\"\ngrid = [2]\nblock = [32]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}, {{ buffer = \"out64\" }}, \
         {{ u32 = {n} }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nu32 = [{}]\n[buffers.out64]\nu32 = [{}]\n",
        f32_bits(&input),
        sentinels(64),
        sentinels(128)
    );
    let p = run(file, &manifest);
    let out = u32s(&p, "out");
    let out64 = u64s(&p, "out64");
    let thousandth = f64::from_bits(0x3f50_624d_d2f1_a9fc);
    for (i, &x) in input.iter().enumerate() {
        let got = f32::from_bits(out[i]);
        let s = x.abs().sqrt();
        let e = f64::from(x).exp2() as f32;
        let l = f64::from(x + 2.0).log2() as f32;
        let (sin, cos) = (f64::from(x).sin() as f32, f64::from(x).cos() as f32);
        let r = 1.0 / (x + 1.5);
        let y = s + e + l + sin.mul_add(cos, r);
        let want = if x > 0.5 { y } else { y.min(x) / 3.0 };
        let bound = 1e-6 * (1.0 + s + e.abs() + l.abs() + (sin * cos).abs() + r.abs() + x.abs());
        if bound.is_finite() {
            assert!(
                (got - want).abs() <= bound,
                "{file}: float_math({x:e}) = {got:e}, want {want:e} within {bound:e}"
            );
        } else {
            assert_eq!(got.to_bits(), want.to_bits(), "{file}: float_math({x:e})");
        }
        let want64 = f64::from(got).mul_add(thousandth, x as i64 as f64) + i as f64;
        assert_eq!(
            out64[i],
            want64.to_bits(),
            "{file}: out64[{i}] from {got:e}: {:e}, want {want64:e}",
            f64::from_bits(out64[i])
        );
    }
    assert!(
        out[n..].iter().all(|&w| w == SENTINEL),
        "{file}: out past n"
    );
    let past = u64::from(SENTINEL) << 32 | u64::from(SENTINEL);
    assert!(
        out64[n..].iter().all(|&w| w == past),
        "{file}: out64 past n"
    );
}

/// divergent.sm80.O2's float_math (see [`check_float_math`]).
#[test]
fn divergent_float_math() {
    check_float_math("divergent.sm80.O2.ptx");
}

/// divergent.sm80.O0's float_math (see [`check_float_math`]): every variable in local memory,
/// the branch on x <= 0.5 (unordered) rather than a select.
#[test]
fn divergent_o0_float_math() {
    check_float_math("divergent.sm80.O0.ptx");
}

/// saxpy.sm80.O0's saxpy(n, a, x, y): y[i] = fma(a, x[i], y[i]) for i < n, on values of
/// every magnitude, a tenth of them with y[i] = -(a * x[i]) rounded, so that the fused
/// result is the rounding error of the product, where a separate multiply and add gives 0.
/// 100 values in 2 CTAs of 64 threads.
#[test]
fn saxpy_o0_saxpy() {
    let mut next = xorshift(0x5a);
    let a = wide_f32(next());
    let x: Vec<f32> = (0..128).map(|_| wide_f32(next())).collect();
    let y: Vec<f32> = (0..128)
        .map(|i| {
            if i % 10 == 3 {
                -(a * x[i])
            } else {
                wide_f32(next())
            }
        })
        .collect();
    let n = 100;
    let manifest = format!(
        "kernel = \"saxpy\"\ngrid = [2]\nblock = [64]\n\
         params = [{{ u32 = {n} }}, {{ f32 = {:?} }}, {{ buffer = \"x\" }}, {{ buffer = \"y\" }}]\n\
         [buffers.x]\nu32 = [{}]\n[buffers.y]\nu32 = [{}]\n",
        f64::from(a),
        f32_bits(&x),
        f32_bits(&y)
    );
    let p = run("saxpy.sm80.O0.ptx", &manifest);
    let want: Vec<u32> = (0..128)
        .map(|i| if i < n { a.mul_add(x[i], y[i]) } else { y[i] }.to_bits())
        .collect();
    assert!(
        want.iter().skip(3).step_by(10).all(|&w| w != 0),
        "the fused results show"
    );
    assert_eq!(u32s(&p, "y"), want);
}

/// saxpy.sm80.O0's daxpy_grid_stride(n, a, x, y): y[i] = fma(a, x[i], y[i]) in f64 (the f64
/// runtime) over a grid-stride loop with a 64-bit index and n, bit for bit, on values of
/// every magnitude with a tenth of them cancelling as in [`saxpy_o0_saxpy`]: 300 values by
/// 128 threads (three turns, the last partial), 20 past n left alone.
#[test]
fn saxpy_o0_daxpy_grid_stride() {
    let mut next = xorshift(0xda);
    let a = wide_f64(next());
    let x: Vec<f64> = (0..320).map(|_| wide_f64(next())).collect();
    let y: Vec<f64> = (0..320)
        .map(|i| {
            if i % 10 == 3 {
                -(a * x[i])
            } else {
                wide_f64(next())
            }
        })
        .collect();
    let n = 300;
    let manifest = format!(
        "kernel = \"daxpy_grid_stride\"\ngrid = [2]\nblock = [64]\n\
         params = [{{ u64 = {n} }}, {{ f64 = {a:?} }}, {{ buffer = \"x\" }}, {{ buffer = \"y\" }}]\n\
         [buffers.x]\nu64 = [{}]\n[buffers.y]\nu64 = [{}]\n",
        f64_bits(&x),
        f64_bits(&y)
    );
    let p = run("saxpy.sm80.O0.ptx", &manifest);
    let want: Vec<u64> = (0..320)
        .map(|i| if i < n { a.mul_add(x[i], y[i]) } else { y[i] }.to_bits())
        .collect();
    assert_eq!(u64s(&p, "y"), want);
}

/// big_K of big_unrolled.sm80.O2 for K in `ks` (the file's 32 kernels are big_1, big_3, ...
/// big_63, each 2,048 unrolled fused multiply-adds over 3,073 f32 registers): big_K(in, out)
/// starts thread i from in[i], then for j in 0..2048 takes acc = fma(acc, in[(i & 255) +
/// (j * K) % 1024], j ^ K), and stores it to out[i]. Values in [-0.9, 0.9], so that the sums
/// stay finite; 2 CTAs of 20 threads (a partial warp) each. The kernels are cut out of the
/// file (each is self-contained) and assembled together, four a test: the whole file takes
/// seconds to assemble in a debug build (tests/assemble_corpus.rs assembles it).
fn check_big_unrolled(ks: std::ops::RangeInclusive<usize>) {
    let file = "big_unrolled.sm80.O2.ptx";
    let whole = corpus_source(CUDA, file);
    let mut source = whole[..whole.find(".visible .entry").unwrap()].to_string();
    for k in ks.clone().step_by(2) {
        let start = whole.find(&format!(".visible .entry big_{k}(")).unwrap();
        let end = start + whole[start..].find("\n}\n").unwrap() + 3;
        source.push_str(&whole[start..end]);
    }
    // Named as the corpus file, which holds these kernels among others.
    let program = common::load_both(&source, &format!("{CUDA}/{file}"));
    let mut next = xorshift(0xb16);
    let input: Vec<f32> = (0..1280).map(|_| unit(next()) * 1.8 - 0.9).collect();
    let threads = 40;
    for k in ks.step_by(2) {
        let manifest = format!(
            "kernel = \"big_{k}\"\ngrid = [2]\nblock = [20]\n\
             params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = {}\n",
            f32_bits(&input),
            4 * threads
        );
        let p = finish(&program, &manifest);
        let want: Vec<u32> = (0..threads)
            .map(|i| {
                let taps = (0..2048).map(|j| (input[(i & 255) + (j * k) % 1024], (j ^ k) as f32));
                taps.fold(input[i], |acc, (x, c)| acc.mul_add(x, c))
                    .to_bits()
            })
            .collect();
        assert_eq!(u32s(&p, "out"), want, "big_{k}");
    }
}

/// Every big_K of big_unrolled.sm80.O2 (see [`check_big_unrolled`]), four at a time so that
/// the tests run side by side.
macro_rules! big_unrolled_tests {
    ($($name:ident: $from:literal ..= $to:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_big_unrolled($from..=$to);
            }
        )*
    };
}

big_unrolled_tests! {
    big_unrolled_big_1_to_7: 1..=7,
    big_unrolled_big_9_to_15: 9..=15,
    big_unrolled_big_17_to_23: 17..=23,
    big_unrolled_big_25_to_31: 25..=31,
    big_unrolled_big_33_to_39: 33..=39,
    big_unrolled_big_41_to_47: 41..=47,
    big_unrolled_big_49_to_55: 49..=55,
    big_unrolled_big_57_to_63: 57..=63,
}

/// surf_basic's surf_copy_invert_bindless(src, dst, width, height): dst(x, y) = ~src(x, y)
/// through surface handles in parameters (`.b` accesses, x in bytes), for x < width and y <
/// height. A 20x11 r32_uint source into a 24x12 rgba8_unorm destination (raw bytes whatever
/// the format), by 2x2 CTAs of 16x8 threads: the threads and the destination's elements
/// outside 20x11 do nothing and keep their values.
#[test]
fn surf_basic_surf_copy_invert_bindless() {
    let (w, h) = (20usize, 11usize);
    let src: Vec<u32> = (0..(w * h) as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9))
        .collect();
    let dst: Vec<u8> = (0..24 * 12 * 4).map(|i| (i * 7 % 251) as u8).collect();
    let manifest = format!(
        "kernel = \"surf_copy_invert_bindless\"\ngrid = [2, 2]\nblock = [16, 8]\n\
         params = [{{ surface = \"src\" }}, {{ surface = \"dst\" }}, {{ u32 = {w} }}, {{ u32 = {h} }}]\n\
         [surfaces.src]\ngeometry = \"2d\"\nwidth = {w}\nheight = {h}\nformat = \"r32_uint\"\nu32 = [{}]\n\
         [surfaces.dst]\ngeometry = \"2d\"\nwidth = 24\nheight = 12\nformat = \"rgba8_unorm\"\nu8 = [{}]\n",
        list(&src),
        list(&dst)
    );
    let program = load(LL, "surf_basic.sm80.ptx");
    let p = finish(&program, &manifest);
    let mut want: Vec<u32> = dst
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for y in 0..h {
        for x in 0..w {
            want[y * 24 + x] = !src[y * w + x];
        }
    }
    assert_eq!(u32s(&p, "dst"), want);
}

/// surf_basic's surf_global_ref(out, x, y) on the `.surfref`s surf0 and surf1 (2d r32_uint,
/// 8x4 and 48x4): v = suld.b.clamp(surf0, x, y) (x in bytes), out[0] = v +
/// suld.b.zero(surf0, x, y); then sust.p.trap(surf1, x, y) of out[0] (x in elements) and
/// sust.b.clamp(surf1, x, y) of v. In bounds; with x past surf0's width (clamped by the
/// first load, zero for the second); and with y = -1, which the loads clamp or zero and the
/// `.trap` store traps on, after out[0] is stored.
#[test]
fn surf_basic_surf_global_ref() {
    let program = load(LL, "surf_basic.sm80.ptx");
    let surf0: Vec<u32> = (0..32u32).map(|i| i * 0x0101_0101 + 0x0100_0000).collect();
    let surf1: Vec<u32> = (0..48 * 4u32)
        .map(|i| i.wrapping_mul(0x8000_8001))
        .collect();
    let manifest = |x: i32, y: i32| {
        format!(
            "kernel = \"surf_global_ref\"\n\
             params = [{{ buffer = \"out\" }}, {{ s32 = {x} }}, {{ s32 = {y} }}]\n\
             [buffers.out]\nu32 = [{SENTINEL}]\n\
             [surfaces.surf0]\ngeometry = \"2d\"\nwidth = 8\nheight = 4\nformat = \"r32_uint\"\nu32 = [{}]\n\
             [surfaces.surf1]\ngeometry = \"2d\"\nwidth = 48\nheight = 4\nformat = \"r32_uint\"\nu32 = [{}]\n",
            list(&surf0),
            list(&surf1)
        )
    };
    // (x, y): out[0], and the elements of surf1 the two stores write.
    let cases = [
        (
            8,
            1,
            2 * surf0[8 + 2],
            [(48 + 8, 2 * surf0[8 + 2]), (48 + 2, surf0[8 + 2])],
        ),
        (
            40,
            3,
            surf0[24 + 7],
            [(3 * 48 + 40, surf0[24 + 7]), (3 * 48 + 10, surf0[24 + 7])],
        ),
    ];
    for (x, y, out, stores) in cases {
        let p = finish(&program, &manifest(x, y));
        assert_eq!(u32s(&p, "out"), [out], "({x}, {y})");
        let mut want = surf1.clone();
        for (at, v) in stores {
            want[at] = v;
        }
        assert_eq!(u32s(&p, "surf1"), want, "({x}, {y})");
    }
    let (p, ran) = launch(&program, &manifest(4, -1));
    let trap = ran.expect_err("y = -1 with .trap");
    assert!(
        matches!(
            trap.cause,
            Cause::Surface(Fault::OutOfBounds {
                coordinate: Axis::Y,
                value: -1,
                ..
            })
        ),
        "{trap}"
    );
    assert_eq!(u32s(&p, "out"), [surf0[1]]);
    assert_eq!(u32s(&p, "surf1"), surf1);
}

/// surf_basic's surf_query(handle, out): suq's width, height and depth of the surface in the
/// parameter, and the channel order, channel data type and array size of the `.surfref`
/// surf0 (OpenCL's codes), to out[0..6]. A 3d surface with an arrayed 2d rg16_snorm surf0,
/// then a 2d one (depth 1) with a 2d rgba8_unorm surf0 (array size 0).
#[test]
fn surf_basic_surf_query() {
    let program = load(LL, "surf_basic.sm80.ptx");
    let cases = [
        (
            "geometry = \"3d\"\nwidth = 5\nheight = 6\ndepth = 7\nformat = \"r32_float\"",
            "geometry = \"a2d\"\nwidth = 3\nheight = 2\nlayers = 4\nformat = \"rg16_snorm\"",
            [5, 6, 7, 0x10b2, 0x10d1, 4], // CL_RG, CL_SNORM_INT16
        ),
        (
            "geometry = \"2d\"\nwidth = 9\nheight = 10\nformat = \"r16_sint\"",
            "geometry = \"2d\"\nwidth = 4\nheight = 4\nformat = \"rgba8_unorm\"",
            [9, 10, 1, 0x10b5, 0x10d2, 0], // CL_RGBA, CL_UNORM_INT8
        ),
    ];
    for (s, surf0, want) in cases {
        let manifest = format!(
            "kernel = \"surf_query\"\nparams = [{{ surface = \"s\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.out]\nsize = 24\n[surfaces.s]\n{s}\n[surfaces.surf0]\n{surf0}\n"
        );
        let p = finish(&program, &manifest);
        assert_eq!(u32s(&p, "out"), want, "{s}");
    }
}

/// The run trapped at `instruction` of the LL file `file` (its first line holding it): a
/// 1d access to a 2d surface.
fn assert_geometry_trap(ran: Result<(), sgpu_sim::Trap>, file: &str, instruction: &str) {
    let trap = ran.expect_err("a 1d access to a 2d surface");
    assert!(
        matches!(
            trap.cause,
            Cause::Surface(Fault::Geometry {
                access: Geom::D1,
                surface: Geom::D2,
                ..
            })
        ),
        "{trap}"
    );
    let line = line_of(&corpus_source(LL, file), instruction);
    assert_eq!(trap.location, format!("{LL}/{file}:{line}"), "{trap}");
}

/// surf_basic's surf_vectors(handle, out, x, y, z, layer) reads and writes one surface
/// through every geometry (2d, 1d, 3d, a2d, a1d), which no surface has: on sgpu the first
/// access of another geometry than the surface's traps. On a 2d r32_uint surface it loads
/// the four bytes at (x, y) (x in bytes), stores them back reversed but for the last
/// ({b2, b1, b0, b3}, `.zero`), then traps at the 1d load, out untouched.
#[test]
fn surf_basic_surf_vectors_traps_at_the_first_other_geometry() {
    let file = "surf_basic.sm80.ptx";
    let program = load(LL, file);
    let s: Vec<u32> = (0..12u32)
        .map(|i| 0x0403_0201u32.wrapping_mul(i + 1))
        .collect();
    let manifest = format!(
        "kernel = \"surf_vectors\"\n\
         params = [{{ surface = \"s\" }}, {{ buffer = \"out\" }}, {{ u32 = 4 }}, {{ u32 = 2 }}, \
         {{ u32 = 0 }}, {{ u32 = 0 }}]\n\
         [buffers.out]\nu32 = [{SENTINEL}]\n\
         [surfaces.s]\ngeometry = \"2d\"\nwidth = 4\nheight = 3\nformat = \"r32_uint\"\nu32 = [{}]\n",
        list(&s)
    );
    let (p, ran) = launch(&program, &manifest);
    assert_geometry_trap(ran, file, "suld.b.1d.v2.b32.clamp");
    let mut want = s.clone();
    let [b0, b1, b2, b3] = s[2 * 4 + 1].to_le_bytes();
    want[2 * 4 + 1] = u32::from_le_bytes([b2, b1, b0, b3]);
    assert_eq!(u32s(&p, "s"), want);
    assert_eq!(u32s(&p, "out"), [SENTINEL]);
}

/// video_inline_asm's surface_reductions(handle, x, y, c, c64) reduces into one surface
/// through 2d and 1d geometries: on sgpu the first 1d access traps. On a 2d r32_uint surface
/// the first reduction adds c to the element at (x, y) (x in bytes, wrapping), then the 1d
/// `sured.b.min` traps.
#[test]
fn video_inline_asm_surface_reductions_traps_at_the_first_other_geometry() {
    let file = "video_inline_asm.sm80.ptx";
    let program = load(LL, file);
    let s: Vec<u32> = (0..12u32).map(|i| 0xfff0_0000 + i).collect();
    let c = 0x0020_0005u32;
    let manifest = format!(
        "kernel = \"surface_reductions\"\n\
         params = [{{ surface = \"s\" }}, {{ u32 = 8 }}, {{ u32 = 1 }}, {{ u32 = {c} }}, {{ u64 = 9 }}]\n\
         [surfaces.s]\ngeometry = \"2d\"\nwidth = 4\nheight = 3\nformat = \"r32_uint\"\nu32 = [{}]\n",
        list(&s)
    );
    let (p, ran) = launch(&program, &manifest);
    assert_geometry_trap(ran, file, "sured.b.min.1d.s32.clamp");
    let mut want = s.clone();
    want[4 + 2] = s[4 + 2].wrapping_add(c);
    assert_eq!(u32s(&p, "s"), want);
}

/// One operand of a video instruction as written: negated or not, a register (or an
/// immediate), and a selector (empty for none).
struct VideoOperand<'a> {
    negated: bool,
    name: &'a str,
    select: &'a str,
}

fn video_operand(text: &str) -> VideoOperand<'_> {
    let (negated, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (name, select) = text.split_once('.').unwrap_or((text, ""));
    VideoOperand {
        negated,
        name,
        select,
    }
}

/// PTX's partSelectSignExtend: the byte or half-word `sel` of `x` (all of it for none),
/// sign-extended if `signed`.
fn video_part(x: u32, signed: bool, sel: &str) -> i128 {
    let (bits, shift) = match sel {
        "" => (32, 0),
        "b0" | "b1" | "b2" | "b3" => (8, 8 * u32::from(sel.as_bytes()[1] - b'0')),
        "h0" | "h1" => (16, 16 * u32::from(sel.as_bytes()[1] - b'0')),
        _ => panic!("selector {sel}"),
    };
    let v = i128::from((u64::from(x) >> shift) & ((1 << bits) - 1));
    if signed && v >> (bits - 1) == 1 {
        v - (1 << bits)
    } else {
        v
    }
}

/// The range of a `bits`-wide signed or unsigned value.
fn video_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    } else {
        (0, (1 << bits) - 1)
    }
}

/// The scalar video instructions' last stages (optSaturate, then optSecOp or optMerge),
/// reading "secondary operation or merge" as the syntax allows: one of them, never both.
fn video_finish(tmp: i128, sat: bool, signed: bool, dsel: &str, secop: &str, c: u32) -> u32 {
    let tmp = if sat {
        let bits = match dsel.as_bytes().first() {
            Some(b'b') => 8,
            Some(b'h') => 16,
            _ => 32,
        };
        let (lo, hi) = video_range(bits, signed);
        tmp.clamp(lo, hi)
    } else {
        tmp
    };
    let cv = if signed {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    let d = match (secop, dsel) {
        ("add", _) => tmp + cv,
        ("min", _) => tmp.min(cv),
        ("max", _) => tmp.max(cv),
        ("", "") => tmp,
        ("", _) => {
            let (mask, shift) = match dsel {
                "h0" | "h1" => (0xffff, 16 * u32::from(dsel.as_bytes()[1] - b'0')),
                _ => (0xff, 8 * u32::from(dsel.as_bytes()[1] - b'0')),
            };
            (tmp & mask) << shift | i128::from(c & !((mask as u32) << shift))
        }
        _ => panic!("secondary operation {secop}"),
    };
    d as u32
}

/// One SIMD video instruction (vadd2 ... vset4), from the pseudocode of its PTX page:
/// elements selected from the pair {b, a} (digits most significant element first), the
/// operation per element, `.sat` to the element's range, then `.add` (c plus the elements
/// the mask names) or the merge (the mask's elements from the result, the others from c).
fn video_simd(
    op: &str,
    types: &[bool],
    mods: &[&str],
    dsel: &str,
    [a, b, c]: [u32; 3],
    [asel, bsel]: [&str; 2],
) -> u32 {
    let n = if op.ends_with('2') { 2 } else { 4 };
    let bits = 32 / n as u32;
    let compare = op.starts_with("vset");
    let (d_signed, a_signed, b_signed) = if compare {
        (false, types[0], types[1])
    } else {
        (types[0], types[1], types[2])
    };
    let element = |k: usize, signed: bool| {
        let word = if k < n { a } else { b };
        let v = i128::from((word >> (bits * (k % n) as u32)) & ((1u64 << bits) - 1) as u32);
        if signed && v >> (bits - 1) == 1 {
            v - (1 << bits)
        } else {
            v
        }
    };
    let extract = |sel: &str, default: &str, signed: bool| -> Vec<i128> {
        let digits = if sel.is_empty() { default } else { &sel[1..] }.as_bytes();
        assert_eq!(digits.len(), n, "selector {sel}");
        (0..n)
            .map(|i| element(usize::from(digits[n - 1 - i] - b'0'), signed))
            .collect()
    };
    let (da, db) = if n == 2 {
        ("10", "32")
    } else {
        ("3210", "7654")
    };
    let va = extract(asel, da, a_signed);
    let vb = extract(bsel, db, b_signed);
    let kind = op.trim_end_matches(['2', '4']);
    let t: Vec<i128> = (0..n)
        .map(|i| {
            let (x, y) = (va[i], vb[i]);
            let t = match kind {
                "vadd" => x + y,
                "vsub" => x - y,
                "vavrg" if x + y >= 0 => (x + y + 1) >> 1,
                "vavrg" => (x + y) >> 1,
                "vabsdiff" => (x - y).abs(),
                "vmin" => x.min(y),
                "vmax" => x.max(y),
                "vset" => i128::from(video_compare(mods, x, y)),
                _ => panic!("{op}"),
            };
            if mods.contains(&"sat") {
                let (lo, hi) = video_range(bits, d_signed);
                t.clamp(lo, hi)
            } else {
                t
            }
        })
        .collect();
    let mask: Vec<bool> = (0..n)
        .map(|i| dsel.is_empty() || dsel[1..].contains(char::from(b'0' + i as u8)))
        .collect();
    if mods.contains(&"add") {
        let sum = (0..n).filter(|&i| mask[i]).map(|i| t[i]).sum::<i128>();
        (i128::from(c) + sum) as u32
    } else {
        let emask = (1u64 << bits) as u32 - 1;
        (0..n)
            .map(|i| {
                let shift = bits * i as u32;
                let e = if mask[i] {
                    t[i] as u32 & emask
                } else {
                    c >> shift & emask
                };
                e << shift
            })
            .sum()
    }
}

/// vset's comparison, named among `mods`.
fn video_compare(mods: &[&str], x: i128, y: i128) -> bool {
    let cmp = ["eq", "ne", "lt", "le", "gt", "ge"]
        .into_iter()
        .find(|c| mods.contains(c))
        .expect("a comparison");
    match cmp {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        _ => x >= y,
    }
}

/// One video instruction `stmt` (its text, as PTX writes it) on the register values of
/// `regs`, from the PTX ISA's pseudocode (shared/spec/ptx: scalar-video-instructions.md and
/// the instruction pages), with docs/video.md's readings where the text needs one. Returns
/// the destination's name and value.
fn video_eval<'a>(stmt: &'a str, regs: &HashMap<&str, u32>) -> (&'a str, u32) {
    let (mnemonic, operands) = stmt.split_once(char::is_whitespace).unwrap();
    let mut parts = mnemonic.split('.');
    let op = parts.next().unwrap();
    let (mut types, mut mods) = (Vec::new(), Vec::new());
    for m in parts {
        match m {
            "u32" => types.push(false),
            "s32" => types.push(true),
            _ => mods.push(m),
        }
    }
    let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
    let (dest, dsel) = operands[0].split_once('.').unwrap_or((operands[0], ""));
    let sources: Vec<VideoOperand> = operands[1..].iter().map(|o| video_operand(o)).collect();
    let value = |o: &VideoOperand| -> u32 {
        match regs.get(o.name) {
            Some(&v) => v,
            None => o
                .name
                .parse()
                .unwrap_or_else(|_| panic!("operand {}", o.name)),
        }
    };
    let c = sources.get(2).map_or(0, value);
    let has = |m: &str| mods.contains(&m);
    let secop = ["add", "min", "max"]
        .into_iter()
        .find(|m| has(m))
        .unwrap_or("");
    let (a, b) = (&sources[0], &sources[1]);
    let result = match op {
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" => {
            let ta = video_part(value(a), types[1], a.select);
            let tb = video_part(value(b), types[2], b.select);
            let tmp = match op {
                "vadd" => ta + tb,
                "vsub" => ta - tb,
                "vabsdiff" => (ta - tb).abs(),
                "vmin" => ta.min(tb),
                _ => ta.max(tb),
            };
            video_finish(tmp, has("sat"), types[0], dsel, secop, c)
        }
        "vshl" | "vshr" => {
            let ta = video_part(value(a), types[1], a.select);
            let mut tb = video_part(value(b), false, b.select);
            if has("clamp") {
                tb = tb.min(32);
            } else {
                tb &= 0x1f;
            }
            let tmp = if op == "vshl" {
                // The s34 intermediate: wrapped to 34 bits, the sign from bit 33.
                (ta << tb) << 94 >> 94
            } else {
                ta >> tb
            };
            video_finish(tmp, has("sat"), types[0], dsel, secop, c)
        }
        "vset" => {
            let ta = video_part(value(a), types[0], a.select);
            let tb = video_part(value(b), types[1], b.select);
            let tmp = i128::from(video_compare(&mods, ta, tb));
            video_finish(tmp, false, false, dsel, secop, c)
        }
        "vmad" => {
            let cop = &sources[2];
            let (a_signed, b_signed) = (types[1], types[2]);
            let ta = video_part(value(a), a_signed, a.select);
            let tb = video_part(value(b), b_signed, b.select);
            let product_negated = a.negated ^ b.negated;
            let signed = a_signed || b_signed || product_negated || cop.negated;
            let (mut tmp, mut c, mut lsb) = (ta * tb, c, 0);
            if has("po") {
                lsb = 1;
            } else if product_negated {
                tmp = !tmp;
                lsb = 1;
            } else if cop.negated {
                c = !c;
                lsb = 1;
            }
            let c128 = if signed {
                i128::from(c as i32)
            } else {
                i128::from(c)
            };
            let tmp = tmp + c128 + lsb;
            let shift = if has("shr7") {
                7
            } else if has("shr15") {
                15
            } else {
                0
            };
            let mut result = if shift == 0 {
                tmp
            } else if signed {
                i128::from((tmp >> shift) as i64)
            } else {
                i128::from((tmp >> shift) as u64)
            };
            if has("sat") {
                let (lo, hi) = video_range(32, signed);
                result = result.clamp(lo, hi);
            }
            result as u32
        }
        _ => {
            let words = [value(a), value(b), c];
            video_simd(op, &types, &mods, dsel, words, [a.select, b.select])
        }
    };
    (dest, result)
}

/// video_inline_asm's video_ops(in, out): 312 inline-assembly video instructions, scalar
/// (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vmad, vset with every type, `.sat`,
/// secondary operation, merge, selector, negation and immediate form) and SIMD (vadd2 ...
/// vset4 with selectors, masks, `.sat` and `.add`), on a = in[0], b = in[1], c = in[2]
/// (and a chain of merges through a register of its own); out[0] is the wrapping sum of
/// their results. Each instruction of the kernel's text is evaluated here by the PTX ISA's
/// pseudocode, on edge operands and random ones.
#[test]
fn video_inline_asm_video_ops() {
    let file = "video_inline_asm.sm80.ptx";
    let source = corpus_source(LL, file);
    let body = &source[source.find(".entry video_ops").unwrap()
        ..source.find(".entry surface_reductions").unwrap()];
    let code: String = body
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let video: Vec<&str> = code
        .split(';')
        .map(|s| s.trim().trim_start_matches('{').trim())
        .filter(|s| s.starts_with('v') && s.contains(' '))
        .collect();
    let program = load(LL, file);
    let mut next = xorshift(0x71de0);
    let mut inputs = vec![
        [0x80ff_7f01, 0x7f80_ff00, 0x1234_5678],
        [0xffff_ffff, 0x8000_0000, 0x7fff_ffff],
        [0x0000_8000, 0xffff_7fff, 0x0000_0000],
        [0x0102_0304, 0x0000_0021, 0xfedc_ba98],
    ];
    inputs.extend((0..6).map(|_| [next() as u32, next() as u32, next() as u32]));
    for [a, b, c] in inputs {
        let mut regs = HashMap::from([("%r5", a), ("%r6", b), ("%r38", c)]);
        let mut sum = 0u32;
        let mut results = 0;
        for stmt in &video {
            let (dest, v) = video_eval(stmt, &regs);
            if dest != "t0" {
                sum = sum.wrapping_add(v);
                results += 1;
            }
            regs.insert(dest, v);
        }
        assert_eq!(results, 312, "the kernel's video instructions");
        let manifest = format!(
            "kernel = \"video_ops\"\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
             [buffers.in]\nu32 = [{a}, {b}, {c}]\n[buffers.out]\nu32 = [{SENTINEL}]\n"
        );
        let p = finish(&program, &manifest);
        assert_eq!(u32s(&p, "out"), [sum], "a = {a:#x}, b = {b:#x}, c = {c:#x}");
    }
}

/// ZLUDA's `param_is_addressable`: the address of a kernel parameter (`mov.b64 t, input`)
/// read back through `ld.param [t]` gives the parameter, so the kernel stores its value minus
/// itself: 0.
#[test]
fn zluda_param_is_addressable() {
    let p = zluda(
        "param_is_addressable",
        "[buffers.in]\nsize = 8\n[buffers.out]\nu64 = [-1]\n",
    );
    assert_eq!(common::u64s(&p, "out"), [0]);
}

/// ZLUDA's `vector`: a device function with `.reg .v2` parameter and result (older nvcc's
/// style) called on a loaded vector: both elements become their sum.
#[test]
fn zluda_vector_register_parameters() {
    let p = zluda(
        "vector",
        "[buffers.in]\nu32 = [1000, 234]\n[buffers.out]\nsize = 8\n",
    );
    assert_eq!(u32s(&p, "out"), [1234, 1234]);
}

/// ZLUDA's `set_gt_f16x2` with ZLUDA's own inputs and expected output (from its test table,
/// run on NVIDIA GPUs): (-0.0, 0.603) > (0.0, 0.354) is (0.0, 1.0).
#[test]
fn zluda_set_gt_f16x2() {
    let p = zluda(
        "set_gt_f16x2",
        "[buffers.in]\nu32 = [0x38d38000, 0x35aa0000]\n[buffers.out]\nsize = 4\n",
    );
    assert_eq!(u32s(&p, "out"), [0x3c00_0000]);
}

/// ZLUDA's kernels of the conversions and arithmetic that issue 10 added, each with the
/// output ZLUDA's tests expect (vosen/ZLUDA ptx/src/test/spirv_run/mod.rs: values their
/// authors took from NVIDIA hardware): fp8 in both directions, `.relu` on packed halves,
/// `cvt.pack` and bf16x2 fma.
#[test]
fn zluda_conversions_and_bf16_arithmetic() {
    let cases: [(&str, &str, &[u32]); 7] = [
        (
            "cvt_rn_satfinite_e4m3x2_f32",
            "f32 = [0.40625, 12.9]",
            &[0x2d55],
        ),
        (
            "cvt_rn_satfinite_e5m2x2_f32",
            "f32 = [0.375, -5256.6]",
            &[0x36ed],
        ),
        ("cvt_rn_f16x2_e4m3x2", "u16 = [0x2d55]", &[0x3680_4a80]),
        ("cvt_rn_f16x2_e5m2x2", "u16 = [0x36ed]", &[0x3600_ed00]),
        (
            "fma_bf16x2",
            "u32 = [0x40004040, 0x40404080, 0x40a04040]",
            &[0x4130_4170],
        ),
        (
            "cvt_pack",
            "s32 = [-257, 257, -130436883]",
            &[2968322303, 2968354943],
        ),
        (
            "cvt_relu_f16x2_f32",
            "f32 = [-1.0, 1.0, 3.14, -inf]",
            &[15360, 1112014848],
        ),
    ];
    for (name, input, want) in cases {
        let buffers = format!("[buffers.in]\n{input}\n[buffers.out]\nsize = 8\n");
        let p = zluda(name, &buffers);
        let out = u32s(&p, "out");
        // Kernels storing a b16 leave the word's high half zero.
        assert_eq!(out[..want.len()], *want, "{name}");
    }
}
