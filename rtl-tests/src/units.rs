//! Units of hw/ linked into the calling process (build.rs builds each one with its shim in
//! csrc/), so that a test drives the RTL and the golden model side by side, as many cases a
//! second as the Verilated module evaluates.
#![allow(unsafe_code)] // the FFI to the Verilated units, and nothing else

use std::ffi::c_void;

extern "C" {
    fn sgpu_video_alu_new() -> *mut c_void;
    fn sgpu_video_alu_free(m: *mut c_void);
    fn sgpu_video_alu_step(m: *mut c_void, word: u64, a: u32, b: u32, c: u32, en: u8) -> u32;
}

/// hw/sgpu_video_alu.sv: one lane of the video unit, a two-stage pipeline.
pub struct VideoAlu(*mut c_void);

impl VideoAlu {
    /// A unit out of reset.
    pub fn new() -> VideoAlu {
        // SAFETY: the shim allocates a model and returns it, never null.
        VideoAlu(unsafe { sgpu_video_alu_new() })
    }

    /// One clock cycle with the instruction `word` on the operands a, b and c (given to
    /// the unit when `en`): returns the unit's output in that cycle, the result of the
    /// instruction of the cycle before (zero if there was none).
    pub fn step(&mut self, word: u64, a: u32, b: u32, c: u32, en: bool) -> u32 {
        // SAFETY: self.0 is a live model from sgpu_video_alu_new, used by one thread
        // (&mut self).
        unsafe { sgpu_video_alu_step(self.0, word, a, b, c, u8::from(en)) }
    }
}

impl Default for VideoAlu {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for VideoAlu {
    fn drop(&mut self) {
        // SAFETY: self.0 came from sgpu_video_alu_new and is freed once.
        unsafe { sgpu_video_alu_free(self.0) }
    }
}
