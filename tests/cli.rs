//! The `ptxas-rs` binary end to end: exit statuses, what goes to stdout and stderr, and that
//! nothing is written when input is bad.

use std::path::Path;
use std::process::{Command, Output};

fn ptxas_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
        .args(args)
        .output()
        .expect("run ptxas-rs")
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
        .display()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

#[test]
fn parse_only_is_silent_and_succeeds_on_valid_input() {
    let out = ptxas_rs(&["--parse-only", &fixture("ok/statements.ptx")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn errors_are_file_line_col_with_source_and_caret_and_exit_1() {
    let path = fixture("err/names.ptx");
    let out = ptxas_rs(&["--parse-only", &path]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let first: Vec<&str> = err.lines().take(3).collect();
    assert_eq!(
        first[0],
        format!("{path}:7:14: error: `twice` is already declared")
    );
    assert_eq!(first[1], "   7 | .global .u32 twice;");
    assert_eq!(first[2], "     |              ^^^^^");
    assert!(
        err.ends_with(&format!("ptxas-rs: 8 errors in {path}\n")),
        "{err}"
    );
}

#[test]
fn bad_input_leaves_no_output_file() {
    let dir = temp_dir();
    let elf = dir.path().join("out.elf");
    let out = ptxas_rs(&[&fixture("err/video.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!elf.exists());
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn assembles_an_elf_that_readelf_accepts_and_disasm_prints() {
    let dir = temp_dir();
    let elf = dir.path().join("blend.elf");
    let src = example("blend.ptx");
    let out = ptxas_rs(&[&src, "-o", elf.to_str().unwrap(), "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Compiling entry function 'blend' for 'sgpu'"),
        "{err}"
    );
    assert!(err.contains("Used 6 registers, 12 bytes cmem[0]"), "{err}");
    let readelf = Command::new("readelf")
        .args(["-a", "-W", elf.to_str().unwrap()])
        .output()
        .expect("readelf (binutils) must be installed");
    let report = String::from_utf8_lossy(&readelf.stdout).into_owned()
        + &String::from_utf8_lossy(&readelf.stderr);
    assert!(readelf.status.success(), "{report}");
    assert!(!report.to_lowercase().contains("warning"), "{report}");
    assert!(report.contains(".text.blend") && report.contains("FUNC    GLOBAL DEFAULT"));
    let dis = ptxas_rs(&["disasm", elf.to_str().unwrap()]);
    assert_eq!(dis.status.code(), Some(0), "{}", stderr(&dis));
    let text = String::from_utf8_lossy(&dis.stdout);
    assert!(text.starts_with("blend:\n"), "{text}");
    // Every instruction with its address, encoding and PTX line.
    let suld = text
        .lines()
        .find(|l| l.contains("SULD.1D.B32.TRAP"))
        .expect("a SULD");
    assert!(
        suld.contains("/* 0x") && suld.contains(&format!("// {src}:32")),
        "{suld}"
    );
    assert!(text.contains("VADD.SAT.MERGE R"), "{text}");
    assert!(text.contains("SUST.1D.B32.TRAP"), "{text}");
}

#[test]
fn disasm_shows_branch_and_ssy_targets_as_absolute_offsets_with_their_labels() {
    let dir = temp_dir();
    let elf = dir.path().join("divergent.elf");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/divergent.ptx");
    let out = ptxas_rs(&[src.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dis = ptxas_rs(&["disasm", elf.to_str().unwrap()]);
    assert_eq!(dis.status.code(), Some(0), "{}", stderr(&dis));
    let text = String::from_utf8_lossy(&dis.stdout);
    // The labels each instruction carries, from the lines `$name:` before it.
    let mut labels_at: Vec<(u64, String)> = Vec::new();
    let mut pending = Vec::new();
    let mut jumps = Vec::new();
    for line in text.lines().skip(1) {
        if let Some(label) = line.strip_suffix(':') {
            pending.push(label.to_string());
            continue;
        }
        let (at, rest) = line.trim_start()[2..].split_once("*/").expect("an address");
        let at = u64::from_str_radix(at, 16).unwrap();
        labels_at.extend(pending.drain(..).map(|l| (at, l)));
        let word = rest.split("/* ").nth(1).expect("an encoding");
        let word = u64::from_str_radix(&word[2..18], 16).unwrap();
        let (sgpu_isa::Op::Bra { target, .. } | sgpu_isa::Op::Ssy { target }) =
            sgpu_isa::decode(word).unwrap().op
        else {
            continue;
        };
        jumps.push((
            at,
            target,
            rest.split("/*").next().unwrap().trim().to_string(),
        ));
    }
    for label in ["$even", "$loop", "$store", "$out"] {
        assert!(labels_at.iter().any(|(_, l)| l == label), "{label}: {text}");
    }
    assert!(jumps.iter().any(|j| j.1 < 0), "a backward branch: {text}");
    assert!(jumps.iter().any(|j| j.2.starts_with("SSY")), "{text}");
    for (at, target, printed) in jumps {
        let to = (at as i64 + 8 + i64::from(target)) as u64;
        let label = &labels_at.iter().find(|(a, _)| *a == to).expect("a label").1;
        assert!(
            printed.ends_with(&format!(" {to:#x} <{label}>")),
            "at {at:#x}: {printed}"
        );
    }
}

/// Assembles a fixture the encoder must refuse: exit 1 and no ELF left; what it printed.
fn refused(name: &str) -> String {
    let dir = temp_dir();
    let elf = dir.path().join("k.elf");
    let out = ptxas_rs(&[&fixture(name), "-o", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!elf.exists());
    stderr(&out)
}

#[test]
fn what_sgpu_cannot_run_is_reported_at_its_line() {
    let err = refused("unsupported/textures.ptx");
    assert!(
        err.contains("textures.ptx:12:2: error: unsupported on sgpu: `txq`"),
        "{err}"
    );
    assert!(
        err.contains("textures.ptx:13:2: error: unsupported on sgpu: `tex`"),
        "{err}"
    );
}

#[test]
fn conversion_modifiers_sgpu_cannot_carry_are_reported() {
    let err = refused("unsupported/cvt_modifiers.ptx");
    for (line, what) in [
        (13, "`cvt.rn.relu.tf32.f32`: tf32"),
        (14, "`cvt.rz.tf32.f32`: tf32"),
        (15, "`cvt.rna.tf32.f32`: `.rna`"),
        (16, "`cvt.rni.f16.f32`: integer rounding between sizes"),
    ] {
        let want = format!("cvt_modifiers.ptx:{line}:2: error: unsupported on sgpu: {what}");
        assert!(err.contains(&want), "{want} not in {err}");
    }
}

/// A module with f64 arithmetic is linked with the runtime functions it calls, and only
/// those: `-v` reports them, `disasm` shows them with their lines in the runtime's PTX.
#[test]
fn f64_code_is_linked_with_the_runtime_functions_it_calls() {
    let dir = temp_dir();
    let ptx = dir.path().join("k.ptx");
    let elf = dir.path().join("k.elf");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{\n\t.reg .f64 %fd<4>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [p];\n\tld.global.f64 %fd1, [%rd1];\n\
         \trsqrt.approx.f64 %fd2, %fd1;\n\tst.global.f64 [%rd1], %fd2;\n\tret;\n}\n",
    )
    .unwrap();
    let out = ptxas_rs(&[ptx.to_str().unwrap(), "-o", elf.to_str().unwrap(), "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    // rsqrt calls sqrt and div; nothing else is linked.
    for f in ["__sgpu_f64_rsqrt", "__sgpu_f64_sqrt", "__sgpu_f64_div"] {
        assert!(err.contains(&format!("Compiling function '{f}'")), "{err}");
    }
    assert_eq!(err.matches("Compiling function").count(), 3, "{err}");
    let dis = ptxas_rs(&["disasm", elf.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&dis.stdout);
    let call = text.lines().find(|l| l.contains("CALL")).expect("a CALL");
    assert!(call.contains(&format!("// {}:10", ptx.display())), "{call}");
    let runtime = text.split("__sgpu_f64_div:").nth(1).expect("the divide");
    let first = runtime.lines().nth(1).expect("an instruction");
    assert!(first.contains("  // <sgpu runtime>/f64.ptx:"), "{first}");
}

#[test]
fn disasm_rejects_what_is_not_an_sgpu_elf() {
    let out = ptxas_rs(&["disasm", &fixture("ok/statements.ptx")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not an ELF64 file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn invalid_utf8_is_reported_at_its_position() {
    let dir = temp_dir();
    let path = dir.path().join("bad.ptx");
    std::fs::write(&path, b".version 7.0\n.target sm_80 \xff\xfe\n").unwrap();
    let out = ptxas_rs(&["--parse-only", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("bad.ptx:2:15: error: the file is not valid UTF-8"),
        "{}",
        stderr(&out)
    );
}

/// Whether text would reach a terminal with nothing but newlines and tabs among the
/// characters it acts on.
fn is_printable(text: &str) -> bool {
    text.chars()
        .all(|c| !c.is_control() || c == '\n' || c == '\t')
}

/// Bytes from a fixed seed (xorshift64*), each below `limit`.
fn random_bytes(len: usize, limit: u16) -> Vec<u8> {
    let mut state = 0x5eed_u64;
    (0..len)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u16 % limit) as u8
        })
        .collect()
}

#[test]
fn a_binary_file_is_one_escaped_error_and_the_count() {
    // A real binary: this program. The line of its first byte that is not UTF-8 shows with
    // its control characters escaped and that byte in hex; the count ends the report, as it
    // does for PTX.
    let binary = env!("CARGO_BIN_EXE_ptxas-rs");
    for args in [&["--parse-only", binary][..], &["fmt", binary]] {
        let out = ptxas_rs(args);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).expect("UTF-8 diagnostics");
        assert!(is_printable(&err), "{err:?}");
        assert!(
            err.starts_with(&format!("{binary}:"))
                && err.contains(": error: the file is not valid UTF-8\n"),
            "{err}"
        );
        // The header's NULs escaped as characters, the first bad byte in hex.
        let excerpt = err.lines().nth(1).unwrap();
        assert!(
            excerpt.contains("\\u{0}") && excerpt.contains("\\x"),
            "{err}"
        );
        assert!(
            err.ends_with(&format!("\nptxas-rs: 1 error in {binary}\n")),
            "{err}"
        );
        assert_eq!(err.lines().count(), 4, "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn random_bytes_are_reported_escaped_up_to_a_hundred_errors_and_counted() {
    let dir = temp_dir();
    // Any bytes: not UTF-8, one error.
    let path = dir.path().join("random.ptx");
    std::fs::write(&path, random_bytes(1 << 16, 256)).unwrap();
    let path = path.to_str().unwrap();
    let out = ptxas_rs(&["--parse-only", path]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).expect("UTF-8 diagnostics");
    assert!(is_printable(&err), "{err:?}");
    assert!(
        err.contains(": error: the file is not valid UTF-8\n"),
        "{err}"
    );
    assert!(
        err.ends_with(&format!("\nptxas-rs: 1 error in {path}\n")),
        "{err}"
    );

    // ASCII bytes, control characters among them: UTF-8, so parsed, with hundreds of errors,
    // of which the first hundred are shown.
    let path = dir.path().join("ascii.ptx");
    std::fs::write(&path, random_bytes(1 << 16, 128)).unwrap();
    let path = path.to_str().unwrap();
    let out = ptxas_rs(&["--parse-only", path]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).expect("UTF-8 diagnostics");
    assert!(is_printable(&err), "{err:?}");
    let shown = err.lines().filter(|l| l.contains(": error: ")).count();
    assert_eq!(shown, 100, "{err}");
    let last: Vec<&str> = err.lines().rev().take(2).collect();
    assert_eq!(
        last[1],
        "ptxas-rs: too many errors; stopped after the first 100"
    );
    let count = last[0]
        .strip_prefix("ptxas-rs: ")
        .and_then(|l| l.strip_suffix(&format!(" errors in {path}")))
        .and_then(|n| n.parse::<usize>().ok());
    assert!(count.is_some_and(|n| n > 100), "{}", last[0]);
}

#[test]
fn a_missing_file_is_an_error_not_a_panic() {
    let out = ptxas_rs(&["--parse-only", "/nonexistent/k.ptx"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("ptxas-rs: error: cannot read /nonexistent/k.ptx"));
}

#[test]
fn fmt_prints_canonical_ptx_and_refuses_bad_input() {
    let path = fixture("ok/module_syntax.ptx");
    let out = ptxas_rs(&["fmt", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let source = std::fs::read_to_string(&path).unwrap();
    let (module, _) = ptx_grammar::parse(&source);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        ptx_grammar::format_module(&module)
    );

    let out = ptxas_rs(&["fmt", &fixture("err/syntax_recovery.ptx")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn fmt_keeps_comments() {
    let dir = temp_dir();
    let path = dir.path().join("commented.ptx");
    std::fs::write(
        &path,
        "// made by hand\n.version 7.0\n.target sm_80 // the GPU\n.address_size 64\n\n\
         .visible .entry k ( .param .u64 p ) // @k\n{\n  // no work\n  ret;   /* done */\n}\n",
    )
    .unwrap();
    let out = ptxas_rs(&["fmt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let formatted = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        formatted,
        "// made by hand\n.version 7.0\n.target sm_80 // the GPU\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 p\n) // @k\n{\n\t// no work\n\tret; /* done */\n}\n"
    );
    // And formatting the output changes nothing.
    std::fs::write(&path, &formatted).unwrap();
    let out = ptxas_rs(&["fmt", path.to_str().unwrap()]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), formatted);
}

#[test]
fn verbose_reports_each_function() {
    let out = ptxas_rs(&["--parse-only", "-v", &fixture("ok/statements.ptx")]);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains("ptxas-rs info: function 'callee' for 'sgpu': 5 instructions, 1 declaration"),
        "{err}"
    );
    assert!(
        err.contains("ptxas-rs info: entry 'statements' for 'sgpu'"),
        "{err}"
    );
}

#[test]
fn version_help_and_unknown_arch() {
    let out = ptxas_rs(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ptxas-rs "));
    let out = ptxas_rs(&["--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("--parse-only"));
    let out = ptxas_rs(&["--arch", "sm_80", &fixture("ok/statements.ptx")]);
    assert_eq!(out.status.code(), Some(1), "a usage error is bad input");
    assert!(
        stderr(&out).contains("invalid value 'sm_80'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_readme_example_checks_cleanly() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blend.ptx");
    let out = ptxas_rs(&["--parse-only", "-v", example.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("entry 'blend' for 'sgpu': 18 instructions"),
        "{}",
        stderr(&out)
    );
}

/// The numbers after "Used" and before "bytes spill stores" in `-v` output.
fn registers_and_spills(err: &str) -> (u32, u32) {
    let used = err
        .split("Used ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a register count");
    let spills = err
        .split(" bytes spill stores")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a spill count");
    (used, spills)
}

#[test]
fn a_kernel_over_the_register_budget_spills_and_says_so() {
    let dir = temp_dir();
    let elf = dir.path().join("p.elf");
    let src = fixture("encode/pressure.ptx");
    let roomy = ptxas_rs(&["-v", &src, "-o", elf.to_str().unwrap()]);
    assert_eq!(roomy.status.code(), Some(0), "{}", stderr(&roomy));
    let (used, spills) = registers_and_spills(&stderr(&roomy));
    assert!(used > 40 && spills == 0, "{}", stderr(&roomy));
    let tight = ptxas_rs(&[
        "-v",
        "--maxrregcount",
        "16",
        &src,
        "-o",
        elf.to_str().unwrap(),
    ]);
    assert_eq!(tight.status.code(), Some(0), "{}", stderr(&tight));
    let (used, spills) = registers_and_spills(&stderr(&tight));
    assert!(used <= 16 && spills > 0, "{}", stderr(&tight));
    let dis = ptxas_rs(&["disasm", elf.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&dis.stdout);
    assert!(
        text.contains("ST.LOCAL.32") && text.contains("LD.LOCAL.32"),
        "{text}"
    );
}

#[test]
fn a_register_budget_below_sixteen_is_refused() {
    let out = ptxas_rs(&["--maxrregcount", "8", &fixture("encode/pressure.ptx")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--maxrregcount"), "{}", stderr(&out));
}

/// Assembles `examples/NAME.ptx` and runs it with `examples/NAME.toml` through the binary, as
/// the README does; the `out` buffer after.
fn assemble_and_run_example(name: &str) -> Vec<u8> {
    let dir = temp_dir();
    let elf = dir.path().join(format!("{name}.elf"));
    let out = dir.path().join("out.bin");
    let asm = ptxas_rs(&[
        &example(&format!("{name}.ptx")),
        "-o",
        elf.to_str().unwrap(),
    ]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let dump = format!("out={}", out.display());
    let run = ptxas_rs(&[
        "run",
        elf.to_str().unwrap(),
        "--launch",
        &example(&format!("{name}.toml")),
        "--dump",
        &dump,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    std::fs::read(&out).unwrap()
}

#[test]
fn run_executes_the_example_and_dumps_the_result() {
    assert_eq!(assemble_and_run_example("blend"), blend_expected());
}

/// What blend's `out` holds after the run: the per-byte saturating sum of the two images in
/// the manifest.
fn blend_expected() -> Vec<u8> {
    let manifest = std::fs::read_to_string(example("blend.toml")).unwrap();
    let table: Vec<Vec<u8>> = manifest
        .split("u8 = [")
        .skip(1)
        .map(|s| {
            s[..s.find(']').unwrap()]
                .split(',')
                .map(|x| x.trim().parse().unwrap())
                .collect()
        })
        .collect();
    table[0]
        .iter()
        .zip(&table[1])
        .map(|(a, b)| a.saturating_add(*b))
        .collect()
}

#[test]
fn a_trapping_kernel_exits_3_naming_the_line() {
    let dir = temp_dir();
    let elf = dir.path().join("t.elf");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/trap.ptx");
    let asm = ptxas_rs(&[src.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let manifest = dir.path().join("t.toml");
    std::fs::write(
        &manifest,
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n\
         [surfaces.img]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_uint\"\n",
    )
    .unwrap();
    // Run from a folder the PTX file is not below: its absolute path.
    let run = ptxas_rs_in(
        dir.path(),
        &[
            "run",
            elf.to_str().unwrap(),
            "--launch",
            manifest.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let err = stderr(&run);
    let src = src.canonicalize().unwrap();
    assert!(
        err.starts_with(&format!("trap: {}:15: SULD.1D.B32.TRAP", src.display())),
        "{err}"
    );
    assert!(
        err.ends_with(
            "x = 16 is out of bounds (0..=12) (CTA (0, 0, 0), thread (4, 0, 0), warp 0)\n"
        ),
        "{err}"
    );
}

/// Runs `ptxas-rs` with `args` in the folder `dir`.
fn ptxas_rs_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ptxas-rs")
}

#[test]
fn a_trap_names_the_ptx_file_as_it_opens_from_where_run_was_called() {
    let dir = temp_dir();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/trap.ptx");
    std::fs::copy(&kernel, src.join("trap.ptx")).unwrap();
    // Assembled in src/ by its bare name, run from the folder above.
    let asm = ptxas_rs_in(&src, &["trap.ptx", "-o", "../t.elf"]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    std::fs::write(
        dir.path().join("t.toml"),
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 32\n\
         [surfaces.img]\ngeometry = \"1d\"\nwidth = 4\nformat = \"r32_uint\"\n",
    )
    .unwrap();
    let run = ptxas_rs_in(dir.path(), &["run", "t.elf", "--launch", "t.toml"]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    assert!(
        stderr(&run).starts_with("trap: src/trap.ptx:15: "),
        "{}",
        stderr(&run)
    );
    // From elsewhere, a path that opens from there too.
    let run = ptxas_rs_in(&src, &["run", "../t.elf", "--launch", "../t.toml"]);
    let err = stderr(&run);
    let path = err
        .strip_prefix("trap: ")
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    assert!(
        src.join(path).canonicalize().unwrap() == src.join("trap.ptx").canonicalize().unwrap(),
        "{err}"
    );
}

#[test]
fn a_trap_of_one_threads_access_names_that_thread() {
    let dir = temp_dir();
    let src = dir.path().join("wild.ptx");
    // Thread (5, 0, 0) alone stores 1 MiB past its buffer.
    std::fs::write(
        &src,
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry wild(.param .u64 out)\n{\n\
         \t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
         \tsetp.eq.u32 %p1, %r1, 5;\n\tselp.b32 %r2, 1048576, 0, %p1;\n\
         \tcvt.u64.u32 %rd2, %r2;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tst.global.u32 [%rd3], %r1;\n\tret;\n}\n",
    )
    .unwrap();
    let elf = dir.path().join("wild.elf");
    let asm = ptxas_rs(&[src.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let manifest = dir.path().join("wild.toml");
    std::fs::write(
        &manifest,
        "block = [8]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 4\n",
    )
    .unwrap();
    let run = ptxas_rs(&[
        "run",
        elf.to_str().unwrap(),
        "--launch",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("wild.ptx:15: ST"), "{err}");
    assert!(
        err.ends_with("(CTA (0, 0, 0), thread (5, 0, 0), warp 0)\n"),
        "{err}"
    );
}

/// The shipped example assembled into a fresh directory: the directory and the ELF's path.
fn assembled_blend() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = temp_dir();
    let elf = dir.path().join("blend.elf");
    let asm = ptxas_rs(&[&example("blend.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    (dir, elf)
}

/// `run ELF --launch NAME`, the manifest NAME in `dir` holding `text`.
fn run_with_manifest(
    dir: &tempfile::TempDir,
    elf: &std::path::Path,
    name: &str,
    text: &str,
) -> std::process::Output {
    let manifest = dir.path().join(name);
    std::fs::write(&manifest, text).unwrap();
    ptxas_rs(&[
        "run",
        elf.to_str().unwrap(),
        "--launch",
        manifest.to_str().unwrap(),
    ])
}

#[test]
fn a_manifest_with_an_unknown_key_is_refused_by_name() {
    let (dir, elf) = assembled_blend();
    let run = run_with_manifest(&dir, &elf, "bad.toml", "kernel = \"blend\"\nthreads = 5\n");
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("unknown key `threads`"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn every_size_in_a_manifest_is_checked_and_refused_by_key() {
    let (dir, elf) = assembled_blend();
    // What blend needs; each case adds top-level keys before it and tables after it.
    let base = "kernel = \"blend\"\nparams = [{ surface = \"out\" }, { u32 = 8 }]\n\
                [surfaces.out]\ngeometry = \"1d\"\nwidth = 8\nformat = \"rgba8_unorm\"\n";
    let surface =
        |dims: &str, format: &str| format!("[surfaces.big]\n{dims}\nformat = \"{format}\"\n");
    let cases = [
        // The product wrapped to 0 threads and the run exited 0.
        (
            "block = [65536, 65536, 1]\n".to_string(),
            String::new(),
            "`block[0]`: 65536 threads; 1 to 1024 along x",
        ),
        (
            "block = [32, 32, 2]\n".into(),
            String::new(),
            "`block`: 32 x 32 x 2 = 2048 threads; at most 1024 per CTA",
        ),
        (
            "block = [1, 1, 65]\n".into(),
            String::new(),
            "`block[2]`: 65 threads; 1 to 64 along z",
        ),
        (
            "grid = [1, 65536]\n".into(),
            String::new(),
            "`grid[1]`: 65536 CTAs; 1 to 65535 along y",
        ),
        // Static plus dynamic shared memory overflowed u32.
        (
            "shared = 4294967295\n".into(),
            String::new(),
            "`shared`: 4294967295 dynamic bytes and the kernel's 0 static bytes make 4294967295; at most 49152 per CTA",
        ),
        (
            String::new(),
            "[buffers.huge]\nsize = 1099511627776\n".into(),
            "buffers.huge: `size` 1099511627776 is more than the 4294967296 bytes the model gives a buffer",
        ),
        (
            String::new(),
            surface("geometry = \"1d\"\nwidth = 65536", "r8_uint"),
            "surfaces.big: `width` 65536 is more than 65535",
        ),
        // width x height x esize wrapped u32 and panicked.
        (
            String::new(),
            surface(
                "geometry = \"2d\"\nwidth = 65535\nheight = 65535",
                "rgba32_float",
            ),
            "surfaces.big: a slice of 68717379600 bytes (width x height x element size) is more than the descriptor's 32 bits hold",
        ),
        (
            String::new(),
            surface(
                "geometry = \"3d\"\nwidth = 4096\nheight = 4096\ndepth = 4096",
                "r8_uint",
            ),
            "surfaces.big: 68719476736 bytes (width x height x depth x layers x element size) is more than the 4294967296 the model gives a surface",
        ),
    ];
    for (i, (top, tables, want)) in cases.iter().enumerate() {
        let text = format!("{top}{base}{tables}");
        let run = run_with_manifest(&dir, &elf, &format!("bad{i}.toml"), &text);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(1), "{want}: {err}");
        assert!(err.contains(want), "want {want}, got {err}");
    }
}

#[test]
fn the_reduce_example_sums_its_input_file() {
    let got = assemble_and_run_example("reduce");
    let input = std::fs::read(example("reduce-input.bin")).unwrap();
    let values: Vec<u32> = input
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u8> = values
        .chunks(256)
        .flat_map(|c| c.iter().sum::<u32>().to_le_bytes())
        .collect();
    assert_eq!(got, want);
}

/// Mode bits of a file, without its type.
#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The process's umask, read the way the shell does (tests run under whatever umask the
/// caller has, so the expected mode is computed from it).
#[cfg(unix)]
fn umask() -> u32 {
    let out = Command::new("sh").args(["-c", "umask"]).output().unwrap();
    u32::from_str_radix(String::from_utf8_lossy(&out.stdout).trim(), 8).unwrap()
}

#[cfg(unix)]
#[test]
fn written_files_get_the_permissions_of_any_new_file() {
    let dir = temp_dir();
    let elf = dir.path().join("blend.elf");
    let out = dir.path().join("out.bin");
    let asm = ptxas_rs(&[&example("blend.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let dump = format!("out={}", out.display());
    let run = ptxas_rs(&[
        "run",
        elf.to_str().unwrap(),
        "--launch",
        &example("blend.toml"),
        "--dump",
        &dump,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let want = 0o666 & !umask();
    assert_eq!(mode(&elf), want, "{:o}", mode(&elf));
    assert_eq!(mode(&out), want, "{:o}", mode(&out));
}

#[test]
fn output_into_a_missing_directory_names_the_directory() {
    let dir = temp_dir();
    let missing = dir.path().join("no-such-dir");
    let elf = missing.join("k.elf");
    let out = ptxas_rs(&[&example("blend.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(
        err,
        format!(
            "ptxas-rs: error: cannot write {}: the directory {} does not exist\n",
            elf.display(),
            missing.display()
        )
    );
}

#[test]
fn a_manifest_syntax_error_gives_its_line_and_column() {
    let (dir, elf) = assembled_blend();
    let run = run_with_manifest(
        &dir,
        &elf,
        "bad.toml",
        "kernel = \"blend\"\nblock = [8,, 1]\n",
    );
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    let want = format!(
        "ptxas-rs: error: {}: line 2, column 12: ",
        dir.path().join("bad.toml").display()
    );
    assert!(err.starts_with(&want), "want {want}, got {err}");
}

#[test]
fn nvidia_ptxas_spellings_are_accepted() {
    let dir = temp_dir();
    let src = example("blend.ptx");
    let single = dir.path().join("single.elf");
    let double = dir.path().join("double.elf");
    let out = ptxas_rs(&[
        "-arch",
        "sgpu",
        "-maxrregcount",
        "32",
        "-O3",
        "-lineinfo",
        "-g",
        "-m64",
        "-Werror",
        "-fmad=false",
        &src,
        "-o",
        single.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = ptxas_rs(&[
        "--gpu-name=sgpu",
        "--maxrregcount",
        "archmax",
        "--opt-level",
        "3",
        "--generate-line-info",
        "--device-debug",
        "--machine",
        "64",
        "--warning-as-error",
        &src,
        "--output-file",
        double.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // They change nothing on sgpu: the same code either way.
    assert_eq!(
        std::fs::read(&single).unwrap(),
        std::fs::read(&double).unwrap()
    );
}

#[test]
fn help_shows_the_ranges_of_values() {
    let out = ptxas_rs(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for want in [
        "16..=255",
        "archmin (16)",
        "archmax (255)",
        "0..=3",
        "[alias: --arch]",
    ] {
        assert!(help.contains(want), "{want} not in {help}");
    }
}

#[test]
fn options_sgpu_lacks_are_named_without_misleading_tips() {
    let src = example("blend.ptx");
    let second = example("reduce.ptx");
    for (args, want) in [
        (&["-maxntid", "32"][..], "unknown option `-maxntid`"),
        (
            &[second.as_str()],
            "2 input files: ptxas-rs assembles one PTX module at a time",
        ),
        (&["--bogus"], "unknown option `--bogus`"),
        (&["--verbos"], "did you mean `--verbose`?"),
        (&["-c"], "`-c` has no meaning on sgpu: sgpu has no linker"),
        (&["-m32"], "invalid value '32' for '--machine <BITS>'"),
        (
            &["-arch", "sm_80"],
            "invalid value 'sm_80' for '--gpu-name <GPU>': `sm_80` is an NVIDIA GPU; ptxas-rs assembles for sgpu only",
        ),
        (&["--arch=gpu"], "`gpu` is not sgpu, the only GPU"),
        (&["-maxrregcount", "8"], "8 is not in 16..=255"),
    ] {
        let out = ptxas_rs(&[args, &[src.as_str()]].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: want {want}, got {err}");
        assert!(!err.contains("as a value"), "{args:?}: {err}");
    }
}

/// A module whose only diagnostic is a warning (a video add's ignored operand c).
const WARNS: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\
    \tld.param.u64 %rd1, [p];\n\tmov.b32 %r1, 1;\n\
    \tvadd.u32.u32.u32 %r2, %r1, %r1, %r1;\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";

#[test]
fn warnings_can_be_errors_or_hidden() {
    let dir = temp_dir();
    let src = dir.path().join("w.ptx");
    std::fs::write(&src, WARNS).unwrap();
    let elf = dir.path().join("w.elf");
    let assemble = |flag: &str| {
        let _ = std::fs::remove_file(&elf);
        let args = [flag, src.to_str().unwrap(), "-o", elf.to_str().unwrap()];
        ptxas_rs(&args[usize::from(flag.is_empty())..])
    };
    let plain = assemble("");
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(stderr(&plain).contains("w.ptx:10:34: warning: operand c is ignored"));
    assert!(elf.exists());

    let strict = assemble("-Werror");
    assert_eq!(strict.status.code(), Some(1));
    assert!(stderr(&strict).contains("w.ptx:10:34: error: operand c is ignored"));
    let summary = format!("ptxas-rs: 1 error in {}\n", src.display());
    assert!(stderr(&strict).ends_with(&summary), "{}", stderr(&strict));
    assert!(
        !elf.exists(),
        "nothing is written when a warning is an error"
    );

    let quiet = assemble("-w");
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    assert!(elf.exists());
}

#[test]
fn spills_and_local_memory_are_warned_about_when_asked() {
    let dir = temp_dir();
    let elf = dir.path().join("p.elf");
    let src = fixture("encode/pressure.ptx");
    let out = ptxas_rs(&[
        "-maxrregcount=16",
        "-warn-spills",
        "-warn-lmem-usage",
        &src,
        "-o",
        elf.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("pressure.ptx:6:17: warning: `pressure` spills registers to local memory: 116 bytes spill stores"), "{err}");
    assert!(
        err.contains("warning: `pressure` uses 128 bytes of local memory"),
        "{err}"
    );
    let roomy = ptxas_rs(&["-warn-spills", &src, "-o", elf.to_str().unwrap()]);
    assert!(roomy.stderr.is_empty(), "{}", stderr(&roomy));
    let strict = ptxas_rs(&[
        "-maxrregcount=16",
        "-warn-spills",
        "-Werror",
        &src,
        "-o",
        elf.to_str().unwrap(),
    ]);
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
}

/// The values of `--print`'s rows (`  [16] 1 2 3`) in `out`, in order.
fn printed_values(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("  ["))
        .flat_map(|l| l.split_once(']').unwrap().1.split_whitespace())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readmes_first_command_shows_the_blended_pixels() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.trim_start().starts_with("cargo run"))
        .expect("a set-up command");
    // The command runs from the repository's root: give it the examples it names there.
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    for f in ["blend.ptx", "blend.toml"] {
        std::fs::copy(example(f), dir.path().join("examples").join(f)).unwrap();
    }
    let mut last = None;
    for step in line.split("&&") {
        let args: Vec<&str> = step
            .trim()
            .strip_prefix("cargo run --release --")
            .expect("each step runs ptxas-rs through cargo")
            .split_whitespace()
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_ptxas-rs"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{step}: {}", stderr(&out));
        last = Some(out);
    }
    let stdout = String::from_utf8(last.unwrap().stdout).unwrap();
    assert!(
        stdout.starts_with("ran blend: grid 1 x 1 x 1, block 32 x 1 x 1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("wrote surface out (32 of 32 bytes)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("out as u8: 32 values\n"), "{stdout}");
    let want: Vec<String> = blend_expected().iter().map(u8::to_string).collect();
    assert_eq!(printed_values(&stdout), want, "{stdout}");
}

/// Runs `examples/reduce` with `args` after the manifest.
fn run_reduce(args: &[&str]) -> Output {
    let dir = temp_dir();
    let elf = dir.path().join("reduce.elf");
    let asm = ptxas_rs(&[&example("reduce.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let manifest = example("reduce.toml");
    let head = ["run", elf.to_str().unwrap(), "--launch", manifest.as_str()];
    ptxas_rs(&[&head[..], args].concat())
}

#[test]
fn run_counts_what_retired_as_the_trace_shows_it() {
    let out = run_reduce(&["--trace"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.starts_with("ran reduce: grid 2 x 1 x 1, block 256 x 1 x 1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nwrote buffer out (8 of 8 bytes)\n"),
        "{stdout}"
    );
    // One trace line per warp instruction, with its mask of the lanes that ran it.
    let trace = stderr(&out);
    let masks: Vec<u32> = trace
        .lines()
        .map(|l| u32::from_str_radix(l.split_whitespace().nth(5).unwrap(), 16).unwrap())
        .collect();
    let threads: u32 = masks.iter().map(|m| m.count_ones()).sum();
    let want = format!(
        "\nretired {} warp instructions, {threads} thread instructions\n",
        masks.len()
    );
    assert!(stdout.contains(&want), "want {want} in {stdout}");
}

#[test]
fn print_shows_first_values_as_asked() {
    let out = run_reduce(&["--print", "out", "--print", "in:b32", "--print", "out:s16"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let input = std::fs::read(example("reduce-input.bin")).unwrap();
    let words: Vec<u32> = input
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let sums: Vec<u32> = words.chunks(256).map(|c| c.iter().sum()).collect();
    let sections: Vec<&str> = stdout.split("\nout as ").collect();
    // `out` is given by size only: 32-bit words.
    assert!(sections[1].starts_with("u32: 2 values\n"), "{stdout}");
    let want: Vec<String> = sums.iter().map(u32::to_string).collect();
    let (u32s, rest) = sections[1].split_once("\nin as b32: ").unwrap();
    assert_eq!(printed_values(u32s), want);
    let count = words.len();
    assert!(
        rest.starts_with(&format!("the first 64 of {count} values\n")),
        "{rest}"
    );
    let want: Vec<String> = words[..64].iter().map(|w| format!("{w:#010x}")).collect();
    assert_eq!(printed_values(rest), want);
    assert!(sections[2].starts_with("s16: 4 values\n"), "{stdout}");
    let halves: Vec<String> = sums
        .iter()
        .flat_map(|s| [*s as i16, (s >> 16) as i16])
        .map(|h| h.to_string())
        .collect();
    assert_eq!(printed_values(sections[2]), halves);
}

#[test]
fn print_refuses_a_bad_name_or_type_before_running() {
    for (arg, want) in [
        ("nothing", "--print: no buffer or surface `nothing`"),
        ("out:u7", "--print: unknown type `u7` (one of u8, u16,"),
        ("out:", "--print: unknown type ``"),
    ] {
        let out = run_reduce(&["--print", arg]);
        assert_eq!(out.status.code(), Some(1), "{arg}");
        assert!(out.stdout.is_empty(), "{arg}: nothing ran");
        assert!(stderr(&out).contains(want), "{arg}: {}", stderr(&out));
    }
}

#[test]
fn output_to_a_device_writes_it_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let out = ptxas_rs(&[&example("blend.ptx"), "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device(), "/dev/null was replaced");
}

#[test]
fn output_through_a_symlink_writes_its_target_and_keeps_the_link() {
    let dir = temp_dir();
    let target = dir.path().join("real.elf");
    let link = dir.path().join("link.elf");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = ptxas_rs(&[&example("blend.ptx"), "-o", link.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(is_link(&link));
    assert_eq!(&std::fs::read(&target).unwrap()[..4], b"\x7fELF");
    // A dump through a link the same way, and one to a device.
    let run = ptxas_rs_in(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .as_path(),
        &[
            "run",
            link.to_str().unwrap(),
            "--launch",
            "blend.toml",
            "--dump",
            &format!("out={}", link.display()),
            "--dump",
            "out=/dev/null",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(is_link(&link));
    assert_ne!(&std::fs::read(&target).unwrap()[..4], b"\x7fELF");
}

#[test]
fn a_dump_that_cannot_be_written_is_an_error_naming_it() {
    let dir = temp_dir();
    let elf = dir.path().join("b.elf");
    let asm = ptxas_rs(&[&example("blend.ptx"), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", stderr(&asm));
    let run = ptxas_rs_in(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .as_path(),
        &[
            "run",
            elf.to_str().unwrap(),
            "--launch",
            "blend.toml",
            "--dump",
            "out=/nonexistent/out.bin",
        ],
    );
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert!(
        err.contains(
            "cannot write /nonexistent/out.bin: the directory /nonexistent does not exist"
        ) && !err.contains(".tmp"),
        "{err}"
    );
}
