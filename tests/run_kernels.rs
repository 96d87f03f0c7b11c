//! PTX kernels through the whole flow (assemble, load, run on the golden model), each result
//! checked against a plain Rust computation of the same thing.

use sgpu_sim::launch::{self, Prepared};
use sgpu_sim::memory::GLOBAL_BASE;
use sgpu_sim::program::Program;
use std::path::Path;

/// Assembles `tests/kernels/NAME.ptx`, runs it with `manifest`, and returns the state after.
fn run(name: &str, manifest: &str) -> Prepared {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/kernels/{name}.ptx"));
    let source = std::fs::read_to_string(&path).unwrap();
    let (module, diags) = ptx_grammar::parse(&source);
    assert!(diags.is_empty(), "{diags:?}");
    let assembled = ptx_encoder::assemble(
        &source,
        &path.display().to_string(),
        &module,
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let program = Program::load(&assembled.elf, GLOBAL_BASE).unwrap();
    let mut p = launch::prepare(manifest, Path::new("."), &program).unwrap();
    sgpu_sim::run(
        &program,
        &mut p.global,
        &mut p.surfaces,
        &p.launch,
        |_, _, _| {},
    )
    .unwrap_or_else(|t| panic!("{name}: {t}"));
    p
}

fn words<const N: usize>(bytes: &[u8]) -> Vec<[u8; N]> {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap())
        .collect()
}

fn u32s(p: &Prepared, buffer: &str) -> Vec<u32> {
    words::<4>(&launch::dump(p, buffer).unwrap())
        .into_iter()
        .map(u32::from_le_bytes)
        .collect()
}

fn list<T: std::fmt::Display>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let input: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2654435761) >> 12)
        .collect();
    let manifest = format!(
        "grid = [4]\nblock = [256]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 16\n",
        list(&input)
    );
    let p = run("reduce", &manifest);
    let want: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

#[test]
fn nested_divergence_reconverges() {
    let p = run(
        "divergent",
        "block = [64]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 256\n",
    );
    let want: Vec<u32> = (0..64u32)
        .map(|t| match (t % 2, t % 4) {
            (0, _) => 3 * (t / 2),
            (_, 3) => 0, // exited early: nothing written
            _ => t * 1000,
        })
        .collect();
    assert_eq!(u32s(&p, "out"), want);
}

#[test]
fn sixty_four_bit_arithmetic_on_pairs() {
    let input: Vec<u64> = (0..32u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 50)).wrapping_sub(i << 40))
        .collect();
    let manifest = format!(
        "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu64 = [{}]\n[buffers.out]\nsize = 1024\n",
        list(input.iter().map(|&x| x as i64))
    );
    let p = run("wide", &manifest);
    let out: Vec<u64> = words::<8>(&launch::dump(&p, "out").unwrap())
        .into_iter()
        .map(u64::from_le_bytes)
        .collect();
    for (i, &x) in input.iter().enumerate() {
        let i64_ = i as u64;
        let want = [
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i64_),
            ((x as i64) >> 7) as u64,
            x / 1_000_003,
            u64::from((x as i64) < ((i64_ << 40) as i64)),
        ];
        assert_eq!(out[4 * i..4 * i + 4], want, "thread {i}, x = {x:#x}");
    }
}

#[test]
fn histogram_with_atomics() {
    let data: Vec<u8> = (0..1000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let manifest = format!(
        "grid = [8]\nblock = [128]\nparams = [{{ buffer = \"data\" }}, {{ buffer = \"bins\" }}, {{ u32 = 1000 }}]\n\
         [buffers.data]\nu8 = [{}]\n[buffers.bins]\nsize = 68\n",
        list(&data)
    );
    let p = run("histogram", &manifest);
    let mut want = vec![0u32; 17];
    for &b in &data {
        want[usize::from(b & 15)] += 1;
        want[16] = want[16].max(u32::from(b));
    }
    assert_eq!(u32s(&p, "bins"), want);
}

#[test]
fn recursive_device_function_calls() {
    let p = run(
        "calls",
        "block = [20]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 80\n",
    );
    let fib = |n: u32| (0..n).fold((0u32, 1u32), |(a, b), _| (b, a + b)).0;
    assert_eq!(u32s(&p, "out"), (0..20).map(fib).collect::<Vec<_>>());
}

#[test]
fn f32_arithmetic_is_ieee() {
    let pairs: [(f32, f32); 8] = [
        (1.5, 2.25),
        (-3.75, 0.1),
        (1e-40, 3.0),
        (7.0, -0.0),
        (f32::MAX, 2.0),
        (0.3, 0.7),
        (-1e30, 1e-10),
        (123456.79, 3.0),
    ];
    let manifest = format!(
        "block = [8]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 160\n",
        list(pairs.iter().flat_map(|&(a, b)| [a.to_bits(), b.to_bits()]))
    );
    let p = run("floats", &manifest);
    let out = u32s(&p, "out");
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let q = a / b;
        // a + b rounded down: the exact sum (in f64, exact for these) then toward -inf.
        let exact = f64::from(a) + f64::from(b);
        let mut down = exact as f32;
        if f64::from(down) > exact {
            down = f32::from_bits(if down > 0.0 {
                down.to_bits() - 1
            } else {
                down.to_bits() + 1
            });
        }
        let rzi = if q.is_nan() {
            0
        } else {
            q.trunc().clamp(i32::MIN as f32, i32::MAX as f32) as i32
        };
        let want = [
            a.mul_add(b, a).to_bits(),
            q.to_bits(),
            a.abs().sqrt().to_bits(),
            down.to_bits(),
            rzi as u32,
        ];
        assert_eq!(
            out[5 * i..5 * i + 5],
            want,
            "thread {i}: a = {a:e}, b = {b:e}"
        );
    }
}

#[test]
fn warp_shuffle_and_ballot() {
    let input: Vec<u32> = (0..32u32).map(|i| i * i + 7).collect();
    let manifest = format!(
        "block = [32]\nparams = [{{ buffer = \"in\" }}, {{ buffer = \"out\" }}]\n\
         [buffers.in]\nu32 = [{}]\n[buffers.out]\nsize = 8\n",
        list(&input)
    );
    let p = run("shuffle", &manifest);
    let sum = input.iter().sum::<u32>();
    let ballot = input
        .iter()
        .enumerate()
        .fold(0u32, |m, (i, &x)| m | ((x & 1) << i));
    assert_eq!(u32s(&p, "out"), [sum, ballot]);
}

#[test]
fn warp_reductions_and_matches() {
    let p = run(
        "reduxmatch",
        "block = [32]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 1024\n",
    );
    let out = u32s(&p, "out");
    let sum: u32 = (0..32).map(|t| t * 7).sum();
    for t in 0..32u32 {
        // Lanes with the same t % 4: every fourth lane from t % 4.
        let class = (0..32)
            .filter(|k| k % 4 == t % 4)
            .fold(0u32, |m, k| m | 1 << k);
        let want = [sum, 31 * 7, (10 - 31i32) as u32, class, 0, 0];
        assert_eq!(out[8 * t as usize..8 * t as usize + 6], want, "lane {t}");
    }
}
