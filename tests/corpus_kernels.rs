//! Real kernels from ../shared/corpus (LLVM's NVPTX output of CUDA code, and ZLUDA's test
//! kernels), assembled and run on the golden model, each checked against a plain Rust
//! computation of the same thing or ZLUDA's expected output.

mod common;

use common::{assemble_and_run, list, u32s};
use sgpu_sim::launch::Prepared;

/// Assembles `FILE` of the corpus's CUDA kernels and runs it with `manifest`.
fn run(file: &str, manifest: &str) -> Prepared {
    let path = common::shared_dir()
        .join("corpus/generated/clang16_cuda")
        .join(file);
    let source = common::read(&path);
    assemble_and_run(&source, file, manifest).unwrap_or_else(|t| panic!("{file}: {t}"))
}

/// Runs ZLUDA's test kernel `NAME` (parameters `input` and `output`, one thread) on the
/// buffers `in` and `out` described by `buffers` (TOML).
fn zluda(name: &str, buffers: &str) -> Prepared {
    let file = format!("zluda/spirv_run/{name}.ptx");
    let source = common::read(&common::shared_dir().join("corpus").join(&file));
    let manifest = format!("params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n{buffers}");
    assemble_and_run(&source, &file, &manifest).unwrap_or_else(|t| panic!("{file}: {t}"))
}

fn dump_f32(p: &Prepared, name: &str) -> Vec<f32> {
    u32s(p, name).into_iter().map(f32::from_bits).collect()
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

#[test]
fn histogram_histogram256() {
    // histogram256(data, n, bins): shared-memory bins with atomics, merged into global ones.
    let n = 5000usize;
    let data: Vec<u8> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let manifest = format!(
        "kernel = \"histogram256\"\ngrid = [3]\nblock = [128]\n\
         params = [{{ buffer = \"data\" }}, {{ u32 = {n} }}, {{ buffer = \"bins\" }}]\n\
         [buffers.data]\nu8 = [{}]\n[buffers.bins]\nsize = 1024\n",
        list(&data)
    );
    let p = run("histogram.sm80.O2.ptx", &manifest);
    let mut want = vec![0u32; 256];
    for &b in &data {
        want[usize::from(b)] += 1;
    }
    assert_eq!(u32s(&p, "bins"), want);
}

#[test]
fn warp_warp_reduce_shfl() {
    // warp_reduce_shfl(in, out): shfl.sync.down sums per warp, one atomic add per warp.
    let input: Vec<u32> = (0..256u32).map(|i| i * 3 + 1).collect();
    let manifest = format!(
        "kernel = \"warp_reduce_shfl\"\ngrid = [2]\nblock = [128]\n\
         params = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 4\n",
        list(&input)
    );
    let p = run("warp.sm80.O2.ptx", &manifest);
    assert_eq!(u32s(&p, "out"), [input.iter().sum::<u32>()]);
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

#[test]
fn devfunc_call_device_functions() {
    // call_device_functions(out, n): out[i] = write_out(make_pair(helper(i, i & 15, ctable),
    // recurse_fib(i & 7))): calls with scalar, pointer and by-value struct arguments and
    // results, recursion, generic loads from a .const table and from local memory.
    let n = 100u32;
    let manifest = format!(
        "kernel = \"call_device_functions\"\ngrid = [2]\nblock = [64]\n\
         params = [{{ buffer = \"out\" }}, {{ u32 = {n} }}]\n[buffers.out]\nsize = {}\n",
        4 * 128
    );
    let p = run("devfunc.sm80.O2.ptx", &manifest);
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
        assert_eq!(out[i as usize].to_bits(), want.to_bits(), "thread {i}");
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
