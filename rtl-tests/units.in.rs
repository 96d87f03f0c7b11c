// Included by build.rs: its text is not part of the core models' hash (see build.rs).

/// Units linked into the tests' own process beside the golden model (src/units.rs): the
/// module, the packages (after the ISA's) and modules under it, and the C shim around it
/// (which includes UNIT_HEADER).
/// Each is built from the ISA package, its own sources and its shim, so that a change to
/// the core does not rebuild it.
const UNITS: [(&str, &[&str], &str); 10] = [
    ("sgpu_video_alu", &[], "csrc/video_alu.cpp"),
    ("sgpu_video_pipe", &["sgpu_core_pkg", "sgpu_pipe"], "csrc/video_pipe.cpp"),
    ("sgpu_fma", &["sgpu_core_pkg"], "csrc/fma.cpp"),
    ("sgpu_fcmp", &["sgpu_core_pkg"], "csrc/fcmp.cpp"),
    ("sgpu_cvt", &["sgpu_core_pkg"], "csrc/cvt.cpp"),
    ("sgpu_f2f", &["sgpu_core_pkg"], "csrc/f2f.cpp"),
    ("sgpu_atom_float", &["sgpu_core_pkg"], "csrc/atom_float.cpp"),
    ("sgpu_fdiv", &["sgpu_core_pkg"], "csrc/fdiv.cpp"),
    (
        "sgpu_mufu",
        &["sgpu_core_pkg", "sgpu_mufu_pkg"],
        "csrc/mufu.cpp",
    ),
    (
        "sgpu_surface_unit",
        &["sgpu_surface_pack"],
        "csrc/surface_unit.cpp",
    ),
];
