//! Builds hw/sgpu_core.sv with Verilator, once per configuration of lanes and warps the
//! harness offers, into OUT_DIR: `verilator --cc` writes C++, the `cc` crate compiles it with
//! csrc/shim.cpp (the C functions src/model.rs calls) into a static library per
//! configuration, and `models.rs` lists them for Rust. Verilator's own runtime is compiled
//! once and kept in OUT_DIR, so an RTL edit recompiles only the model; a model whose sources
//! are unchanged (by content, so a fresh clone with new file times counts as unchanged) is
//! not built again. Without Verilator or a C++ compiler the build fails and says what to
//! install; nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (lanes, warps) of every model built: the default core, every other lane count the core
/// takes (1, 2, 4, 16, 32), and fewer warps for the latency-hiding measurements.
const CONFIGS: [(u32, u32); 8] = [
    (8, 8),
    (1, 8),
    (2, 8),
    (4, 8),
    (16, 8),
    (32, 8),
    (8, 1),
    (8, 4),
];

/// Units linked into the tests' own process beside the golden model (src/units.rs): the
/// module, the modules under it, and the C shim around it (which includes UNIT_HEADER).
/// Each is built from the ISA package, its own sources and its shim, so that a change to
/// the core does not rebuild it.
const UNITS: [(&str, &[&str], &str); 2] = [
    ("sgpu_video_alu", &[], "csrc/video_alu.cpp"),
    (
        "sgpu_surface_unit",
        &["sgpu_surface_pack"],
        "csrc/surface_unit.cpp",
    ),
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let hw = root.join("hw");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let files = rtl_files(&hw);
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-changed={}", hw.join("files.f").display());
    println!("cargo:rerun-if-changed=csrc/shim.cpp");

    let include = verilator_include();
    runtime(&include, &out);
    // What a model is built from: the RTL, the shim and this script, by content.
    let mut sources: String = files
        .iter()
        .chain([&PathBuf::from("csrc/shim.cpp"), &PathBuf::from("build.rs")])
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    sources.push_str(&include.display().to_string());
    let (mut items, mut list) = (String::new(), String::from("["));
    for (lanes, warps) in CONFIGS {
        let name = format!("sgpu_l{lanes}w{warps}");
        let stamp = out.join(format!("{name}.stamp"));
        let lib = out.join(format!("lib{name}.a"));
        if lib.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == sources) {
            println!("cargo:rustc-link-lib=static={name}");
        } else {
            model(&name, lanes, warps, &files, &include, &out);
            std::fs::write(&stamp, &sources).expect("write the model's stamp");
        }
        items.push_str(&format!("model!({name});\n"));
        list.push_str(&format!("entry!({name}, {lanes}, {warps}),"));
    }
    std::fs::write(out.join("models.rs"), items).unwrap();
    std::fs::write(out.join("configs.rs"), list + "]").unwrap();
    for (top, under, shim) in UNITS {
        unit(&root, top, under, shim, &include, &out);
    }
    // After the models, which need it: a static library resolves only what came before it.
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
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

/// Verilator's runtime library, compiled once per OUT_DIR (it does not change with the RTL).
fn runtime(include: &Path, out: &Path) {
    let lib = out.join("libverilated_rt.a");
    if !lib.exists() {
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .debug(false)
            .warnings(false)
            .include(include)
            .include(include.join("vltstd"))
            .file(include.join("verilated.cpp"))
            .file(include.join("verilated_threads.cpp"))
            .file(include.join("verilated_vcd_c.cpp"))
            .cargo_metadata(false)
            .compile("verilated_rt");
    }
}

/// One configuration: Verilated into its own directory, compiled with the shim.
fn model(name: &str, lanes: u32, warps: u32, files: &[PathBuf], include: &Path, out: &Path) {
    let prefix = format!("V{name}");
    let args = [
        "--trace".to_string(),
        "--top-module".to_string(),
        "sgpu_core".to_string(),
        "-DSGPU_COSIM".to_string(),
        format!("-GLANES={lanes}"),
        format!("-GWARPS={warps}"),
    ];
    let mut build = verilate(name, &args, files, include, out);
    build
        .define("SGPU_TOP", prefix.as_str())
        .define("SGPU_HEADER", format!("\"{prefix}.h\"").as_str())
        .define("SGPU_NAME", format!("{name}_").as_str())
        .define("SGPU_LANES", lanes.to_string().as_str())
        .file("csrc/shim.cpp");
    build.cpp_link_stdlib(None).compile(name);
}

/// A unit of hw/ as its own library with its shim, built again only when the package, the
/// module or the shim changes.
/// What every unit's shim includes.
const UNIT_HEADER: &str = "csrc/unit.h";

fn unit(root: &Path, top: &str, under: &[&str], shim: &str, include: &Path, out: &Path) {
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
    let sources: String = files
        .iter()
        .chain([
            &PathBuf::from(shim),
            &PathBuf::from(UNIT_HEADER),
            &PathBuf::from("build.rs"),
        ])
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let stamp = out.join(format!("{top}.stamp"));
    if out.join(format!("lib{top}.a")).exists()
        && std::fs::read_to_string(&stamp).is_ok_and(|s| s == sources)
    {
        println!("cargo:rustc-link-lib=static={top}");
        return;
    }
    let args = ["--top-module".to_string(), top.to_string()];
    let mut build = verilate(top, &args, &files, include, out);
    build.file(shim).cpp_link_stdlib(None).compile(top);
    std::fs::write(&stamp, &sources).expect("write the unit's stamp");
}

/// Runs `verilator --cc` on `files` into OUT_DIR/`name` with the class V`name`, and returns a
/// C++ build of the generated files for the caller to add its shim to.
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
        .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast"])
        .args(["--prefix", &format!("V{name}")])
        .args(args)
        .arg("--Mdir")
        .arg(&dir)
        .args(files)
        .status()
        .expect("run verilator");
    assert!(status.success(), "verilator failed on hw/ for {name}");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
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
