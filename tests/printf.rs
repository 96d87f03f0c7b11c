//! Device printf end to end (docs/hw.md, "Device printf"): `tests/kernels/printf.ptx` calls
//! CUDA's `vprintf` as NVVM and clang do, from several threads, warps and CTAs; the printf
//! runtime linked into its ELF appends records to the buffer the launch reserves, and
//! `ptxas-rs run` prints them. Checked: the exact output at -O0 and -O3 (C's formatting as
//! glibc gives it), what vprintf returns, a buffer too small (records dropped, nothing else
//! written) and none at all, output kept when the kernel traps, and the declarations the
//! assembler refuses. The CUDA example `examples/cuda/printf.cu` runs in `tests/cuda.rs`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The manifest of two CTAs of 40 threads, `out` four words a thread, with `keys` at its
/// top level.
fn manifest(keys: &str) -> String {
    format!(
        "grid = [2]\nblock = [40]\nparams = [{{ buffer = \"out\" }}]\n{keys}\n\
         [buffers.out]\nsize = 1280\n"
    )
}

/// What one CTA of `printf.ptx` prints.
fn printed_by_cta(cta: u32) -> String {
    let mut text = String::new();
    for t in (0..32u32).step_by(4) {
        let letter = char::from(b'a' + (t / 4) as u8);
        let minus = -1000 * t as i32;
        text += &format!(
            "cta {cta} thread {t:2}: {minus} {} {:#x} {letter}\n",
            !t,
            t * 0x1111
        );
        // %#x of 0 has no 0x.
        text = text.replace(" 0x0 ", " 0 ");
    }
    for t in [33u64, 35, 37, 39] {
        let name = ["one", "two"][(t as usize >> 1) & 1];
        let (wide, hex) = (-((t << 40) as i64), t << 36);
        text += &format!("cta {cta} thread {t}: {wide} {} {hex:#x} {name}\n", !t);
    }
    text += &format!("{cta}.333 -1.234500e+03 1e-05 0x1p+0 [    3.14] [-0.0e+00 ] INF\n");
    text += "% % %k [  one] [x   ] [tw] [(null)] [   -42] [+7   ] [-0003] [44] (nil) 0x1234\n";
    text += "no arguments\n";
    let squares: Vec<String> = (0..32).map(|i| (i * i).to_string()).collect();
    text + &squares.join(" ") + " %d\n"
}

fn ptxas_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
        .args(args)
        .output()
        .expect("run ptxas-rs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `source` assembled at `-O<level>` and run with `manifest` by the command line, in `dir`.
fn assemble_and_run(dir: &Path, source: &Path, level: u8, manifest: &str) -> Output {
    let elf = dir.join(format!("kernel-O{level}.elf"));
    let launch = dir.join("launch.toml");
    std::fs::write(&launch, manifest).unwrap();
    let asm = ptxas_rs(&[
        &format!("-O{level}"),
        source.to_str().unwrap(),
        "-o",
        elf.to_str().unwrap(),
    ]);
    assert_eq!(asm.status.code(), Some(0), "{}", text(&asm.stderr));
    ptxas_rs(&[
        "run",
        elf.to_str().unwrap(),
        "--launch",
        launch.to_str().unwrap(),
    ])
}

fn kernel_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/printf.ptx")
}

/// The printf kernel's buffers after a launch with `manifest` (at -O3, checked against -O0:
/// `common::Both`), and what it printed.
fn launch(
    manifest: &str,
) -> (
    sgpu_sim::launch::Prepared,
    Option<sgpu_sim::printf::Printed>,
) {
    let (path, source) = common::kernel("printf");
    let both = common::load_both(&source, &path);
    let p = both.finish(manifest, Path::new("."));
    let printed = sgpu_sim::printf::printed(&p.global, &both.optimised);
    (p, printed)
}

/// What each thread's vprintf calls returned: `out` as four i32 a thread.
fn results(p: &sgpu_sim::launch::Prepared) -> Vec<[i32; 4]> {
    let words = common::u32s(p, "out");
    words
        .chunks(4)
        .map(|c| [0, 1, 2, 3].map(|i| c[i] as i32))
        .collect()
}

#[test]
fn records_print_in_buffer_order_with_c_formatting_at_every_level() {
    let dir = tempfile::tempdir().unwrap();
    let want = printed_by_cta(0) + &printed_by_cta(1);
    for level in [0, 3] {
        let run = assemble_and_run(dir.path(), &kernel_path(), level, &manifest(""));
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        assert_eq!(text(&run.stderr), "", "-O{level}");
        let stdout = text(&run.stdout);
        let (printed, report) = stdout
            .split_once("ran printf_test: ")
            .expect("the run's report follows what the kernel printed");
        assert_eq!(printed, want, "-O{level}");
        assert!(report.contains("(printf buffer)"), "{report}");
    }
}

#[test]
fn vprintf_returns_the_number_of_arguments_or_minus_one_for_no_format() {
    let (p, printed) = launch(&manifest(""));
    let printed = printed.expect("the kernel prints");
    assert_eq!(text(&printed.text), printed_by_cta(0) + &printed_by_cta(1));
    assert_eq!((printed.records, printed.dropped), (32, 0));
    let got = results(&p);
    for (i, r) in got.iter().enumerate() {
        let t = i % 40;
        let want = match t {
            0 => [6, 0, 7, 11],
            // A NULL format, no arguments, 33 arguments of which 32 are copied.
            1 => [0, 0, -1, 32],
            _ if t < 32 && t % 4 == 0 => [6, 0, 0, 0],
            _ if t > 32 && t % 2 == 1 => [0, 6, 0, 0],
            _ => [0; 4],
        };
        assert_eq!(*r, want, "thread {t} of CTA {}", i / 40);
    }
}

#[test]
fn a_full_buffer_drops_records_and_writes_nothing_else() {
    // Room for five of round 1's records (16 bytes each and 24 of arguments).
    let manifest = manifest(&format!("printf_buffer = {}", 16 + 5 * 40));
    let (path, source) = common::kernel("printf");
    let program = common::load(&source, &path);
    let before = sgpu_sim::launch::prepare(&manifest, Path::new("."), &program).unwrap();
    let (p, printed) = launch(&manifest);
    let printed = printed.expect("the kernel prints");
    let first_five: String = printed_by_cta(0).split_inclusive('\n').take(5).collect();
    assert_eq!(text(&printed.text), first_five);
    assert_eq!((printed.records, printed.dropped), (5, 27));
    assert!(printed.problems.is_empty(), "{:?}", printed.problems);
    // Every call after the fifth record returned -2 (but the NULL format's -1).
    let got = results(&p);
    for (i, r) in got.iter().enumerate() {
        let t = i % 40;
        let fits = i < 20 && t % 4 == 0;
        let round1 = t < 32 && t % 4 == 0;
        let round2 = t > 32 && t % 2 == 1;
        let expect = [
            if round1 {
                if fits {
                    6
                } else {
                    -2
                }
            } else {
                0
            },
            if round2 || t == 1 { -2 } else { 0 },
            match t {
                0 => -2,
                1 => -1,
                _ => 0,
            },
            if t < 2 { -2 } else { 0 },
        ];
        assert_eq!(*r, expect, "thread {t} of CTA {}", i / 40);
    }
    // The records fill the buffer exactly; the cursor counts what was claimed past it.
    let buffer = sgpu_sim::launch::bytes_of(&p, sgpu_sim::printf::REGION).unwrap();
    assert_eq!(buffer.len(), 216);
    let claimed = u64::from_le_bytes(buffer[..8].try_into().unwrap());
    assert_eq!(claimed, 2 * (8 * 40 + 4 * 56 + 72 + 88 + 16 + 144));
    // Nothing but `out` and the buffer changed.
    for (after, before) in p.global.regions.iter().zip(&before.global.regions) {
        if after.name != "out" && after.name != sgpu_sim::printf::REGION {
            assert_eq!(after.bytes, before.bytes, "{}", after.name);
        }
    }
}

#[test]
fn the_command_warns_of_dropped_records() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = manifest("printf_buffer = 216");
    let run = assemble_and_run(dir.path(), &kernel_path(), 3, &manifest);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(
        text(&run.stderr),
        "ptxas-rs: warning: printf: 27 records did not fit in the printf buffer's 216 bytes \
         and were dropped (the manifest's `printf_buffer` sets its size)\n"
    );
    assert!(text(&run.stdout).starts_with("cta 0 thread  0: 0 4294967295 0 a\n"));
}

#[test]
fn without_a_buffer_every_record_is_dropped() {
    let (p, printed) = launch(&manifest("printf_buffer = 0"));
    assert_eq!(printed, None);
    assert_eq!(results(&p)[0], [-2, 0, -2, -2]);
    assert_eq!(results(&p)[1], [0, -2, -1, -2]);
}

#[test]
fn a_buffer_size_the_header_does_not_fit_is_refused() {
    let (path, source) = common::kernel("printf");
    let program = common::load(&source, &path);
    for size in ["8", "-1", "\"big\""] {
        let manifest = manifest(&format!("printf_buffer = {size}"));
        let e = sgpu_sim::launch::prepare(&manifest, Path::new("."), &program)
            .err()
            .expect("refused");
        assert!(e.starts_with("`printf_buffer` must be"), "{size}: {e}");
    }
}

/// A kernel printing `"before the trap\n"` from thread 0, then trapping.
const TRAPS: &str = r#".version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) vprintf(.param .b64 format, .param .b64 args);
.global .align 1 .b8 message[17] = {98, 101, 102, 111, 114, 101, 32, 116, 104, 101, 32, 116, 114, 97, 112, 10, 0};
.visible .entry traps()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	mov.u64 %rd1, message;
	cvta.global.u64 %rd1, %rd1;
	{
	.param .b64 format;
	st.param.b64 [format], %rd1;
	.param .b64 args;
	st.param.b64 [args], 0;
	.param .b32 r;
	call.uni (r), vprintf, (format, args);
	ld.param.b32 %r1, [r];
	}
	trap;
}
"#;

#[test]
fn what_a_kernel_printed_before_it_trapped_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("traps.ptx");
    std::fs::write(&source, TRAPS).unwrap();
    let run = assemble_and_run(dir.path(), &source, 3, "");
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert_eq!(text(&run.stdout), "before the trap\n");
    assert!(
        text(&run.stderr).starts_with("trap: "),
        "{}",
        text(&run.stderr)
    );
}

/// `ptxas-rs` on `source`: its exit status and standard error.
fn assemble(source: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.ptx");
    std::fs::write(&file, source).unwrap();
    let out = ptxas_rs(&[
        file.to_str().unwrap(),
        "-o",
        dir.path().join("k.elf").to_str().unwrap(),
    ]);
    (out.status.code(), text(&out.stderr))
}

#[test]
fn a_vprintf_declared_otherwise_and_the_runtimes_variable_are_refused() {
    let other = TRAPS.replace(".param .b64 args)", ".param .b32 args)");
    let (code, err) = assemble(&other);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("k.ptx:4:31: error: `vprintf` is declared with other parameters"),
        "{err}"
    );
    let reserved = TRAPS.replace("message", "__sgpu_printf_buffer");
    let (code, err) = assemble(&reserved);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("error: `__sgpu_printf_buffer` is reserved: sgpu's printf runtime defines it"),
        "{err}"
    );
}
