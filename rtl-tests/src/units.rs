//! Units of hw/ linked into the calling process (build.rs builds each one with its shim in
//! csrc/), so that a test drives the RTL and the golden model side by side, as many cases a
//! second as the Verilated module evaluates.
#![allow(unsafe_code)] // the FFI to the Verilated units, and nothing else

use std::ffi::c_void;

extern "C" {
    fn sgpu_surface_unit_new() -> *mut c_void;
    fn sgpu_surface_unit_free(m: *mut c_void);
    fn sgpu_surface_unit_step(
        m: *mut c_void,
        word: u64,
        desc: *const u32,
        coord: *const u32,
        comp: *const u32,
        en: u8,
        out: *mut SurfaceOut,
    );
}

/// What a lane unit gives in a cycle (csrc/unit.h's `LaneOut`): rd, rd + 1 (a 64-bit
/// result's high word) and the predicates pd and pq, each zero where the unit has no such
/// output.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneOut {
    pub d: u32,
    pub d_hi: u32,
    pub pd: u8,
    pub pq: u8,
}

/// A lane unit that takes an instruction word, up to three operands and a predicate and
/// gives a [`LaneOut`].
pub trait LaneUnit {
    /// One clock cycle with the instruction `word` on the operands (a, b and c: b is the
    /// high word of a 64-bit a for a unit that reads one) and the predicate p (given to the
    /// unit when `en`): returns the unit's outputs in that cycle, the result of an
    /// instruction given in an earlier cycle (zeros if there is none).
    fn step(&mut self, word: u64, operands: [u32; 3], p: bool, en: bool) -> LaneOut;
}

/// A [`LaneUnit`]: the Rust face of the C functions csrc/unit.h's `SGPU_LANE_UNIT` writes
/// for it.
macro_rules! lane_unit {
    ($(#[$doc:meta])* $name:ident, $new:ident, $free:ident, $step:ident) => {
        $(#[$doc])*
        pub struct $name(*mut c_void);

        impl $name {
            /// A unit out of reset.
            pub fn new() -> $name {
                extern "C" {
                    fn $new() -> *mut c_void;
                }
                // SAFETY: the shim allocates a model and returns it, never null.
                $name(unsafe { $new() })
            }
        }

        impl LaneUnit for $name {
            fn step(&mut self, word: u64, [a, b, c]: [u32; 3], p: bool, en: bool) -> LaneOut {
                extern "C" {
                    fn $step(
                        m: *mut c_void,
                        word: u64,
                        a: u32,
                        b: u32,
                        c: u32,
                        p: u8,
                        en: u8,
                        out: *mut LaneOut,
                    );
                }
                let mut out = LaneOut::default();
                // SAFETY: self.0 is a live model from the shim's `new`, used by one thread
                // (&mut self); `out` is a LaneOut, the layout the shim writes.
                unsafe { $step(self.0, word, a, b, c, u8::from(p), u8::from(en), &mut out) };
                out
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                extern "C" {
                    fn $free(m: *mut c_void);
                }
                // SAFETY: self.0 came from the shim's `new` and is freed once.
                unsafe { $free(self.0) }
            }
        }
    };
}

lane_unit!(
    /// hw/sgpu_video_alu.sv: one lane of the video unit, a two-stage pipeline (the result in
    /// the cycle after the instruction).
    VideoAlu,
    sgpu_video_alu_new,
    sgpu_video_alu_free,
    sgpu_video_alu_step
);

lane_unit!(
    /// hw/sgpu_video_pipe.sv: core v2's video unit, four stages (the result four cycles
    /// after the instruction).
    VideoPipe,
    sgpu_video_pipe_new,
    sgpu_video_pipe_free,
    sgpu_video_pipe_step
);

lane_unit!(
    /// hw/sgpu_fcmp.sv: one lane of the f32 unit's comparisons (FMNMX, FSETP, which writes
    /// pd and pq), five stages as the FMA has (the results four cycles after the
    /// instruction).
    Fcmp,
    sgpu_fcmp_new,
    sgpu_fcmp_free,
    sgpu_fcmp_step
);

lane_unit!(
    /// hw/sgpu_cvt.sv: one lane of the f32 unit's conversions with integers (F2I, whose
    /// 64-bit results are d_hi:d, and I2F, which reads a 64-bit integer as b:a), five
    /// stages as the FMA has (the results four cycles after the instruction).
    Cvt,
    sgpu_cvt_new,
    sgpu_cvt_free,
    sgpu_cvt_step
);

lane_unit!(
    /// hw/sgpu_f2f.sv: the conversions between float formats (F2F), four stages, the
    /// f32 unit's latency (the result four cycles after the instruction); the core has one
    /// for its lanes.
    F2f,
    sgpu_f2f_new,
    sgpu_f2f_free,
    sgpu_f2f_step
);

lane_unit!(
    /// hw/sgpu_mufu.sv: the special function unit (MUFU), one for the core (which gives it a
    /// lane's operand at a time), eleven stages (the result eleven cycles after the
    /// instruction).
    Mufu,
    sgpu_mufu_new,
    sgpu_mufu_free,
    sgpu_mufu_step
);

lane_unit!(
    /// hw/sgpu_fma.sv: one lane of the f32 unit's add, multiply and fused multiply-add, five
    /// stages (the result four cycles after the instruction).
    Fma,
    sgpu_fma_new,
    sgpu_fma_free,
    sgpu_fma_step
);

/// hw/sgpu_atom_float.sv: a float atomic's new value from the old one and the operand,
/// started and run to its end.
pub struct AtomFloat(*mut c_void);

extern "C" {
    fn sgpu_atom_float_new() -> *mut c_void;
    fn sgpu_atom_float_free(m: *mut c_void);
    fn sgpu_atom_float_run(
        m: *mut c_void,
        aop: u8,
        aty: u8,
        old: u32,
        b: u32,
        limit: u32,
        out: *mut u32,
    ) -> u32;
}

impl AtomFloat {
    /// A unit out of reset.
    pub fn new() -> AtomFloat {
        // SAFETY: the shim allocates a model and returns it, never null.
        AtomFloat(unsafe { sgpu_atom_float_new() })
    }

    /// One operation (the aop and aty fields' values): the new value and the cycles from the
    /// start to done_o, or `None` if done_o did not come within `limit` cycles.
    pub fn run(&mut self, aop: u8, aty: u8, old: u32, b: u32, limit: u32) -> Option<(u32, u32)> {
        let mut out = 0;
        // SAFETY: self.0 is a live model from the shim's `new`, used by one thread (&mut
        // self); `out` is written once.
        let cycles = unsafe { sgpu_atom_float_run(self.0, aop, aty, old, b, limit, &mut out) };
        (cycles > 0).then_some((out, cycles))
    }
}

impl Default for AtomFloat {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for AtomFloat {
    fn drop(&mut self) {
        // SAFETY: self.0 came from the shim's `new` and is freed once.
        unsafe { sgpu_atom_float_free(self.0) }
    }
}

/// What hw/sgpu_surface_unit.sv gives in a cycle, for the access of the cycle before
/// (csrc/surface_unit.cpp has the same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SurfaceOut {
    pub addr: u64,
    pub pdata: [u32; 4],
    pub query: u32,
    pub valid: u8,
    pub trap: u8,
    pub cause: u8,
    pub drop: u8,
    /// log2 of the access's bytes.
    pub size: u8,
    pub is_signed: u8,
}

/// hw/sgpu_surface_unit.sv: the surface unit's arithmetic for one access, two stages.
pub struct SurfaceUnit(*mut c_void);

impl SurfaceUnit {
    /// A unit out of reset.
    pub fn new() -> SurfaceUnit {
        // SAFETY: the shim allocates a model and returns it, never null.
        SurfaceUnit(unsafe { sgpu_surface_unit_new() })
    }

    /// One clock cycle with the instruction `word`, a descriptor's words, the coordinate
    /// registers and SUST.P's components on the inputs (given to the unit when `en`):
    /// returns the unit's outputs in that cycle, the results of the access of the cycle
    /// before.
    pub fn step(
        &mut self,
        word: u64,
        desc: &[u32; 8],
        coord: &[u32; 3],
        comp: &[u32; 4],
        en: bool,
    ) -> SurfaceOut {
        let mut out = SurfaceOut::default();
        // SAFETY: self.0 is a live model from sgpu_surface_unit_new, used by one thread
        // (&mut self); the arrays are as long as the shim reads, and `out` is written once.
        unsafe {
            sgpu_surface_unit_step(
                self.0,
                word,
                desc.as_ptr(),
                coord.as_ptr(),
                comp.as_ptr(),
                u8::from(en),
                &mut out,
            )
        };
        out
    }
}

impl Default for SurfaceUnit {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SurfaceUnit {
    fn drop(&mut self) {
        // SAFETY: self.0 came from sgpu_surface_unit_new and is freed once.
        unsafe { sgpu_surface_unit_free(self.0) }
    }
}

extern "C" {
    fn sgpu_fdiv_new() -> *mut c_void;
    fn sgpu_fdiv_free(m: *mut c_void);
    fn sgpu_fdiv_step(m: *mut c_void, start: u8, word: u64, a: u32, b: u32, out: *mut FdivOut);
    fn sgpu_fdiv_run(m: *mut c_void, word: u64, a: u32, b: u32, bound: u32, out: *mut FdivRun);
}

/// What hw/sgpu_fdiv.sv gives in a cycle (csrc/fdiv.cpp has the same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FdivOut {
    pub d: u32,
    pub busy: u8,
    pub done: u8,
}

/// One operation of hw/sgpu_fdiv.sv (csrc/fdiv.cpp has the same layout): its result, the
/// cycles from start_i to done_o (0 when done_o did not come within the bound), and whether
/// busy_o was high in every cycle between and low with done_o.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FdivRun {
    pub d: u32,
    pub cycles: u32,
    pub busy: u8,
}

/// hw/sgpu_fdiv.sv: the core's f32 divider (FDIV, FSQRT, FRCP), iterative, shared by the
/// lanes.
pub struct Fdiv(*mut c_void);

impl Fdiv {
    /// A unit out of reset.
    pub fn new() -> Fdiv {
        // SAFETY: the shim allocates a model and returns it, never null.
        Fdiv(unsafe { sgpu_fdiv_new() })
    }

    /// One clock cycle with these inputs: returns the unit's outputs in that cycle, before
    /// its rising edge takes the inputs.
    pub fn step(&mut self, start: bool, word: u64, a: u32, b: u32) -> FdivOut {
        let mut out = FdivOut::default();
        // SAFETY: self.0 is a live model from sgpu_fdiv_new, used by one thread (&mut self);
        // `out` is an FdivOut, the layout the shim writes.
        unsafe { sgpu_fdiv_step(self.0, u8::from(start), word, a, b, &mut out) };
        out
    }

    /// The instruction `word` on ra = a and rb = b, from start_i to done_o (at most `bound`
    /// cycles), with other values on the inputs after start_i. It stops before the rising
    /// edge of done_o's cycle, so that the next operation, or [`Fdiv::step`], starts in it.
    pub fn run(&mut self, word: u64, a: u32, b: u32, bound: u32) -> FdivRun {
        let mut out = FdivRun::default();
        // SAFETY: as in `step`; `out` is an FdivRun.
        unsafe { sgpu_fdiv_run(self.0, word, a, b, bound, &mut out) };
        out
    }
}

impl Default for Fdiv {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Fdiv {
    fn drop(&mut self) {
        // SAFETY: self.0 came from sgpu_fdiv_new and is freed once.
        unsafe { sgpu_fdiv_free(self.0) }
    }
}
