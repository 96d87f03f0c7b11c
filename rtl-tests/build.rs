//! Builds hw/sgpu_core.sv with Verilator, once per configuration of lanes and warps the
//! harness offers: `verilator --cc` writes C++, the `cc` crate compiles it with
//! csrc/shim.cpp (the C functions src/model.rs calls) into a static library per
//! configuration, and `models.rs` lists them for Rust. Units linked into the tests' process
//! are built the same way, and Verilator's runtime once.
//!
//! Each library is kept in `<target>/sgpu-models/NAME-HASH/`, the hash of everything it is
//! built from (the RTL, the shim, this script, Verilator's include path) by content: every
//! profile, `cargo clippy` and `cargo test` alike, and a fresh clone with new file times,
//! find it there, and an RTL edit rebuilds only what changed. The C++ files of one library
//! compile in parallel (cc's jobserver); test-all.sh says when the libraries are built and
//! why that takes minutes. Without Verilator or a C++ compiler the build fails and says what
//! to install; nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (lanes, warps) of every model built: the default core, every other lane count the core
/// takes (1, 2, 4, 16, 32), fewer warps for the latency-hiding measurements, and the
/// smallest core, whose netlist is built too (`NETLISTS`).
const CONFIGS: [(u32, u32); 9] = [
    (8, 8),
    (1, 8),
    (2, 8),
    (4, 8),
    (16, 8),
    (32, 8),
    (8, 1),
    (8, 4),
    (1, 1),
];

/// (lanes, warps) of the cores also built from yosys's gate-level netlist
/// (hw/synth/netlist.sh): the smallest, whose synthesis takes two minutes (the default core's
/// flattened netlist would keep ABC busy for hours).
const NETLISTS: [(u32, u32); 1] = [(1, 1)];

// The units linked into the tests' process (`UNITS`), in a file of their own: this script's
// text is part of every core model's hash, the list is not, so adding a unit does not
// rebuild the core.
include!("units.in.rs");

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let hw = root.join("hw");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let cache = cache_dir(&out);
    // Every file is watched (a file may come to define what the core uses); the models are
    // built from, and hashed over, only those the core needs.
    let all = rtl_files(&hw);
    for f in &all {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let files = needed_by("sgpu_core", &all);
    println!("cargo:rerun-if-changed={}", hw.join("files.f").display());
    println!("cargo:rerun-if-changed=csrc/shim.cpp");
    for p in MESSAGES {
        println!("cargo:rerun-if-changed={p}");
    }

    let include = verilator_include();
    // What a model is built from: the RTL (as read once, into a snapshot that Verilator
    // reads, so that an edit during the build cannot end up under the old content's hash),
    // the shim and this script, by content.
    let (mut sources, files) = snapshot(&cache, &files);
    for p in ["csrc/shim.cpp", "build.rs", MESSAGES[0]] {
        sources.push_str(&read(Path::new(p)));
    }
    sources.push_str(&include.display().to_string());
    // The netlists not in the cache are synthesised first, beside the RTL models' C++
    // compilation: yosys is one process, and on two cores the two together take little
    // longer than the compilation alone.
    // netlist.sh and the helpers it sources.
    let script = hw.join("synth/netlist.sh");
    let common = hw.join("synth/common.sh");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-changed={}", common.display());
    let netlists: Vec<_> = NETLISTS
        .into_iter()
        .map(|(lanes, warps)| {
            let name = format!("sgpu_gl_l{lanes}w{warps}");
            let key = format!("{sources}{}{}{name}", read(&script), read(&common));
            let path = cache.join(format!("{name}.netlist-{}.v", std::process::id()));
            let (script, files) = (script.clone(), files.clone());
            let synthesis = (!library(&cache, &name, &key).exists())
                .then(|| std::thread::spawn(move || netlist(&script, lanes, warps, &files, path)));
            (name, key, lanes, warps, synthesis)
        })
        .collect();
    let (mut items, mut list) = (String::new(), String::from("["));
    for (lanes, warps) in CONFIGS {
        let name = format!("sgpu_l{lanes}w{warps}");
        let key = format!("{sources}{name}");
        cached(&cache, &name, &key, |dir| {
            let args = [
                "--trace".to_string(),
                "-DSGPU_COSIM".to_string(),
                format!("-GLANES={lanes}"),
                format!("-GWARPS={warps}"),
            ];
            model(&name, lanes, &args, &files, &include, dir)
        });
        items.push_str(&format!("model!({name});\n"));
        list.push_str(&format!("entry!({name}, {lanes}, {warps}, false),"));
    }
    for (name, key, lanes, warps, synthesis) in netlists {
        cached(&cache, &name, &key, |dir| {
            let netlist = synthesis
                .expect("synthesised, as it was not cached")
                .join()
                .expect("the synthesis thread ends");
            // The netlist is yosys's, not ours to lint, and its vectors are bit-level logic
            // that Verilator sees as loops. No waveform: tracing its hundred thousand wires
            // would double the build.
            let args = ["-Wno-lint".to_string(), "-Wno-UNOPTFLAT".to_string()];
            model(
                &name,
                lanes,
                &args,
                std::slice::from_ref(&netlist),
                &include,
                dir,
            );
            let _ = std::fs::remove_file(netlist);
        });
        items.push_str(&format!("model!({name});\n"));
        list.push_str(&format!("entry!({name}, {lanes}, {warps}, true),"));
    }
    std::fs::write(out.join("models.rs"), items).unwrap();
    std::fs::write(out.join("configs.rs"), list + "]").unwrap();
    for (top, under, shim) in UNITS {
        unit(&root, top, under, shim, &include, &cache);
    }
    // After the models, which need it: a static library resolves only what came before it.
    let mut key = format!("{}{}", include.display(), read(Path::new("build.rs")));
    for p in MESSAGES {
        key.push_str(&read(Path::new(p)));
    }
    cached(&cache, "verilated_rt", &key, |dir| runtime(&include, dir));
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `<target>/sgpu-models`: OUT_DIR is `<target>/<profile>/build/<package>-<hash>/out`.
fn cache_dir(out: &Path) -> PathBuf {
    let target = out
        .ancestors()
        .nth(4)
        .expect("OUT_DIR lies four folders into the target");
    target.join("sgpu-models")
}

/// Links the static library `lib<name>.a` built by `build` into a folder of its own, named
/// for the hash of `key`: built now unless the cache holds it. `build` writes into a
/// temporary folder renamed into place at the end, so an interrupted build leaves nothing
/// that looks finished; a lock keeps two cargo processes (a release and a debug build) from
/// building the same library at once. The temporary folder is named for the content, not
/// the process, so that ccache finds the same paths when the same content is built again
/// (after `cargo clean`, say).
fn cached(cache: &Path, name: &str, key: &str, build: impl FnOnce(&Path)) {
    let built = library(cache, name, key);
    let dir = built.parent().expect("a library lies in its folder");
    let folder = dir.file_name().expect("a named folder").to_string_lossy();
    let lock = std::fs::File::create(cache.join(format!("{folder}.lock")))
        .expect("create the model cache's lock");
    lock.lock().expect("lock the model cache");
    if !built.exists() {
        let started = std::time::Instant::now();
        // Shown as it happens by `cargo -vv` (test-all.sh filters these lines out of it);
        // kept in target/<profile>/build/rtl-tests-*/output either way. Not as a cargo
        // warning: cargo would show that again on every build, long after.
        println!("building {name}: Verilator, then g++ (a minute or two on 2 cores)");
        let tmp = cache.join(format!("{folder}.building"));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("create the model cache");
        build(&tmp);
        // Only the library is kept: the generated C++ and the objects are megabytes a model.
        let library = std::ffi::OsString::from(format!("lib{name}.a"));
        for entry in std::fs::read_dir(&tmp)
            .expect("read the build folder")
            .flatten()
        {
            if entry.file_name() != library {
                let path = entry.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&tmp, dir).expect("move the built library into the cache");
        println!(
            "built {name} in {:.0} s into {}",
            started.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static={name}");
}

/// Where the library `name` built from `key` lies in the cache.
fn library(cache: &Path, name: &str, key: &str) -> PathBuf {
    let dir = cache.join(format!("{name}-{:016x}", fnv1a(key.as_bytes())));
    dir.join(format!("lib{name}.a"))
}

/// Reads `files` once: their text, and copies of them in a folder of the cache named for
/// that text, which is what gets built.
fn snapshot(cache: &Path, files: &[PathBuf]) -> (String, Vec<PathBuf>) {
    let texts: Vec<String> = files.iter().map(|f| read(f)).collect();
    let all = texts.concat();
    let dir = cache.join(format!("rtl-{:016x}", fnv1a(all.as_bytes())));
    std::fs::create_dir_all(&dir).expect("create the RTL snapshot");
    let copies = files
        .iter()
        .zip(&texts)
        .map(|(f, text)| {
            let copy = dir.join(f.file_name().expect("an RTL file's name"));
            std::fs::write(&copy, text).expect("write the RTL snapshot");
            copy
        })
        .collect();
    (all, copies)
}

/// FNV-1a, 64 bits: a hash that every build of this script computes alike.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The sources of hw/files.f, in its order.
fn rtl_files(hw: &Path) -> Vec<PathBuf> {
    let list = std::fs::read_to_string(hw.join("files.f")).expect("read hw/files.f");
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| hw.join(l))
        .collect()
}

/// The files of `files` that the module `top` needs, in their order: the one defining it and,
/// again for each, those defining a module or package its text names. A module of
/// hw/files.f that the core does not use (core v2's, while it is built beside it) is then
/// not part of the core models' hash, so adding one does not rebuild them. Comments are left
/// out ("the module checks" in one named a file `checks` defines).
fn needed_by(top: &str, files: &[PathBuf]) -> Vec<PathBuf> {
    let texts: Vec<String> = files.iter().map(|f| without_comments(&read(f))).collect();
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let defines: Vec<Vec<String>> = texts
        .iter()
        .map(|t| {
            let w = words(t);
            w.windows(2)
                .filter(|p| p[0] == "module" || p[0] == "package")
                .map(|p| p[1].clone())
                .collect()
        })
        .collect();
    let mut needed = vec![false; files.len()];
    let mut names = vec![top.to_string()];
    while let Some(name) = names.pop() {
        for (i, defined) in defines.iter().enumerate() {
            if !needed[i] && defined.contains(&name) {
                needed[i] = true;
                names.extend(words(&texts[i]));
            }
        }
    }
    assert!(
        needed.contains(&true),
        "no file of hw/files.f defines {top}"
    );
    files
        .iter()
        .zip(needed)
        .filter(|&(_, n)| n)
        .map(|(f, _)| f.clone())
        .collect()
}

/// SystemVerilog text with its `//` and `/* */` comments replaced by a space (string
/// literals kept whole, a `//` in one included).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('"', _) => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            ('/', Some('/')) => {
                chars.by_ref().find(|&e| e == '\n');
                out.push('\n');
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                chars
                    .by_ref()
                    .find(|&e| std::mem::replace(&mut last, e) == '*' && e == '/');
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

fn verilator_include() -> PathBuf {
    let output = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output();
    let root = match output {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => panic!(
            "rtl-tests needs Verilator 5.006 or later and g++ to build the RTL model: \
             install them (`apt-get install -y verilator g++`)"
        ),
    };
    PathBuf::from(root).join("include")
}

/// Where Verilator's messages go (csrc/messages.h): the header every C++ file includes first,
/// and the file that keeps them, part of the runtime.
const MESSAGES: [&str; 2] = ["csrc/messages.h", "csrc/messages.cpp"];

/// A C++ build with Verilator's messages redirected (`MESSAGES`), through ccache when it is
/// installed and no compiler was chosen (cc takes a wrapper as the first word of `CXX`).
/// Paths below the cache are made relative (`CCACHE_BASEDIR`), so that the same content
/// built again hits.
fn cpp_build() -> cc::Build {
    let target = std::env::var("TARGET").unwrap_or_default();
    let chosen = [
        "CXX".to_string(),
        "HOST_CXX".to_string(),
        format!("CXX_{target}"),
        format!("CXX_{}", target.replace('-', "_")),
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some());
    let ccache = Command::new("ccache").arg("--version").output();
    if !chosen && ccache.is_ok_and(|o| o.status.success()) {
        std::env::set_var("CXX", "ccache c++");
        if std::env::var_os("CCACHE_BASEDIR").is_none() {
            let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
            std::env::set_var("CCACHE_BASEDIR", cache_dir(&out));
        }
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .define("VL_PRINTF", "sgpu_printf")
        .flag("-include")
        .flag(MESSAGES[0]);
    build
}

/// Verilator's runtime library (it does not change with the RTL), into `dir`.
fn runtime(include: &Path, dir: &Path) {
    cpp_build()
        .include(include)
        .include(include.join("vltstd"))
        .file(include.join("verilated.cpp"))
        .file(include.join("verilated_threads.cpp"))
        .file(include.join("verilated_vcd_c.cpp"))
        .file(MESSAGES[1])
        .cargo_metadata(false)
        .out_dir(dir)
        .compile("verilated_rt");
}

/// One configuration, the RTL of `files` with `args` or a netlist: Verilated into its own
/// directory, compiled with the shim (which writes waveforms if `args` has `--trace`).
fn model(name: &str, lanes: u32, args: &[String], files: &[PathBuf], include: &Path, out: &Path) {
    let prefix = format!("V{name}");
    let mut all = vec!["--top-module".to_string(), "sgpu_core".to_string()];
    all.extend_from_slice(args);
    let mut build = verilate(name, &all, files, include, out);
    if args.iter().any(|a| a == "--trace") {
        build.define("SGPU_TRACE", None);
    }
    build
        .define("SGPU_TOP", prefix.as_str())
        .define("SGPU_HEADER", format!("\"{prefix}.h\"").as_str())
        .define("SGPU_NAME", format!("{name}_").as_str())
        .define("SGPU_LANES", lanes.to_string().as_str())
        .file("csrc/shim.cpp");
    build.cpp_link_stdlib(None).compile(name);
}

/// The gate-level netlist of the core with `lanes` and `warps` from the RTL `files`, written
/// to `path` by hw/synth/netlist.sh (yosys).
fn netlist(script: &Path, lanes: u32, warps: u32, files: &[PathBuf], path: PathBuf) -> PathBuf {
    println!("synthesising the {lanes}-lane, {warps}-warp core with yosys");
    let status = Command::new(script)
        .arg(&path)
        .args([
            format!("LANES={lanes}"),
            format!("WARPS={warps}"),
            "--".into(),
        ])
        .args(files)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}: the gate-level co-simulation needs yosys 0.23 or later \
                 (`apt-get install -y yosys`)",
                script.display()
            )
        });
    assert!(
        status.success(),
        "yosys could not synthesise the core: {status}"
    );
    path
}

/// What every unit's shim includes.
const UNIT_HEADER: &str = "csrc/unit.h";

/// A unit of hw/ as its own library with its shim, built again only when the package, the
/// module or the shim changes.
fn unit(root: &Path, top: &str, under: &[&str], shim: &str, include: &Path, cache: &Path) {
    let files: Vec<PathBuf> = ["sgpu_isa_pkg"]
        .iter()
        .chain(under)
        .chain([&top])
        .map(|m| root.join(format!("hw/{m}.sv")))
        .collect();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-changed={shim}");
    println!("cargo:rerun-if-changed={UNIT_HEADER}");
    let (mut key, files) = snapshot(cache, &files);
    for p in [shim, UNIT_HEADER, "build.rs", MESSAGES[0]] {
        key.push_str(&read(Path::new(p)));
    }
    key.push_str(&include.display().to_string());
    cached(cache, top, &key, |dir| {
        let args = ["--top-module".to_string(), top.to_string()];
        let mut build = verilate(top, &args, &files, include, dir);
        build.file(shim).cpp_link_stdlib(None).compile(top);
    });
}

/// Runs `verilator --cc` on `files` into `out`/`name` with the class V`name`, and returns a
/// C++ build of the generated files, writing its library into `out`, for the caller to add
/// its shim to.
fn verilate(
    name: &str,
    args: &[String],
    files: &[PathBuf],
    include: &Path,
    out: &Path,
) -> cc::Build {
    let dir = out.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let status = Command::new("verilator")
        .args([
            "--cc",
            "-O3",
            "--assert",
            "--x-assign",
            "unique",
            "--x-initial",
            "unique",
        ])
        .args(["--prefix", &format!("V{name}")])
        .args(args)
        .arg("--Mdir")
        .arg(&dir)
        .args(files)
        .status()
        .expect("run verilator");
    assert!(status.success(), "verilator failed on hw/ for {name}");
    let mut build = cpp_build();
    build
        .out_dir(out)
        .cargo_metadata(false)
        .include(&dir)
        .include(include)
        .include(include.join("vltstd"));
    let mut generated: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the Verilator output")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    generated.sort();
    build.files(generated);
    build
}
