//! The Verilated core, one cycle at a time: [`Model::cycle`] applies [`Inputs`] and returns
//! the [`Outputs`] of that cycle (sampled before the rising edge). Each configuration of
//! lanes and warps is its own Verilated library (build.rs), from the RTL or, for the smallest,
//! from yosys's gate-level netlist too; [`Model::new`] picks one.
//!
//! The C side is csrc/shim.cpp; `Inputs` and `Outputs` are its structs, field for field.
#![allow(unsafe_code)] // the FFI to the Verilated model, and nothing else

use std::ffi::{c_char, c_void, CString};
use std::path::Path;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs {
    pub imem_wdata: u64,
    pub surf_table: u64,
    pub imem_addr: u32,
    pub code_words: u32,
    pub entry: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub dyn_shared: u32,
    pub local: u32,
    pub surf_count: u32,
    pub mem_rsp_rdata: [u32; 4],
    pub mem_rsp_tag: u16,
    pub rst_n: u8,
    pub imem_we: u8,
    pub start: u8,
    pub mem_req_ready: u8,
    pub mem_rsp_valid: u8,
    pub mem_rsp_err: u8,
    /// Faults to inject (`FAULT_*` of hw/sgpu_core.sv, a bit each): 0 but in the tests of
    /// the assertions.
    pub fault: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Outputs {
    pub mem_req_addr: u64,
    pub rvfi_order: u64,
    pub rvfi_word: u64,
    pub rvfi_st_addr: u64,
    pub trap_pc: u32,
    pub mem_req_wdata: [u32; 4],
    pub rvfi_pc: u32,
    pub rvfi_active: u32,
    pub rvfi_mask: u32,
    pub rvfi_next_pc: u32,
    pub rvfi_next_active: u32,
    pub rvfi_pred_val: [u32; 2],
    pub rvfi_carry: u32,
    pub rvfi_clock: u32,
    pub rvfi_rf_lanes: u32,
    pub rvfi_rf_data: [u32; 32],
    pub rvfi_st_data: [u32; 4],
    pub rvfi_cta_idx: [u32; 3],
    pub rvfi_bar_released: u32,
    pub rvfi_bar_value: u32,
    pub rvfi_lw_data: u32,
    pub mem_req_thread: u16,
    pub mem_req_tag: u16,
    pub mem_req_be: u16,
    pub busy: u8,
    pub done: u8,
    pub trap_cause: u8,
    pub trap_warp: u8,
    pub mem_req_valid: u8,
    pub mem_req_write: u8,
    pub mem_req_space: u8,
    pub rvfi_valid: u8,
    pub rvfi_warp: u8,
    pub rvfi_exited: u8,
    pub rvfi_pred_we: u8,
    pub rvfi_pred_idx: [u8; 2],
    pub rvfi_carry_we: u8,
    pub rvfi_rf_we: u8,
    pub rvfi_rf_reg: u8,
    pub rvfi_rf_lane0: u8,
    pub rvfi_st_valid: u8,
    pub rvfi_st_lane: u8,
    pub rvfi_st_space: u8,
    pub rvfi_st_len: u8,
    pub rvfi_cta: u8,
    pub rvfi_bar_valid: u8,
    pub rvfi_bar_id: u8,
    pub rvfi_bar_waits: u8,
    pub rvfi_bar_red: u8,
    pub rvfi_bar_op: u8,
    pub mem_rsp_ready: u8,
    pub rvfi_late: u8,
    pub rvfi_lw_valid: u8,
    pub rvfi_lw_warp: u8,
    pub rvfi_lw_reg: u8,
    pub rvfi_lw_lane: u8,
    /// An assertion of the RTL failed at this cycle's edge or before ([`messages`] says
    /// which).
    pub assert_failed: u8,
}

/// One configuration's functions.
struct Config {
    core: Core,
    new: unsafe extern "C" fn(*const c_char, u64) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    cycle: unsafe extern "C" fn(*mut c_void, *const Inputs, *mut Outputs),
}

// models.rs (build.rs) says `model!(name)` for each configuration, which declares its
// functions; configs.rs lists them as `entry!(name, lanes, warps)`.
macro_rules! model {
    ($name:ident) => {
        pub mod $name {
            use super::*;
            extern "C" {
                #[link_name = concat!(stringify!($name), "_new")]
                pub fn new(vcd: *const c_char, x_seed: u64) -> *mut c_void;
                #[link_name = concat!(stringify!($name), "_free")]
                pub fn free(m: *mut c_void);
                #[link_name = concat!(stringify!($name), "_cycle")]
                pub fn cycle(m: *mut c_void, i: *const Inputs, o: *mut Outputs);
            }
        }
    };
}

mod built {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

fn configs() -> Vec<Config> {
    macro_rules! entry {
        ($name:ident, $lanes:literal, $warps:literal, $netlist:literal) => {
            Config {
                core: Core {
                    lanes: $lanes,
                    warps: $warps,
                    netlist: $netlist,
                },
                new: built::$name::new,
                free: built::$name::free,
                cycle: built::$name::cycle,
            }
        };
    }
    Vec::from(include!(concat!(env!("OUT_DIR"), "/configs.rs")))
}

/// A configuration of the core: its lanes and warps, and whether it is the RTL or yosys's
/// gate-level netlist of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Core {
    pub lanes: u32,
    pub warps: u32,
    pub netlist: bool,
}

impl std::fmt::Display for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let (lanes, warps) = (self.lanes, self.warps);
        let of = if self.netlist { "the netlist of " } else { "" };
        write!(f, "{of}the core of {lanes} lanes and {warps} warps")
    }
}

/// The configurations built.
pub fn available() -> Vec<Core> {
    configs().iter().map(|c| c.core).collect()
}

/// A Verilated core.
pub struct Model {
    ptr: *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    cycle: unsafe extern "C" fn(*mut c_void, *const Inputs, *mut Outputs),
    pub lanes: u32,
    pub warps: u32,
}

impl Model {
    /// The `core`, writing a waveform to `vcd` if given; `None` when that configuration was
    /// not built. Its registers that reset leaves alone start at zero with an `x_seed` of 0,
    /// else at random values of that seed.
    pub fn new(core: Core, vcd: Option<&Path>, x_seed: u64) -> Option<Model> {
        let c = configs().into_iter().find(|c| c.core == core)?;
        let path = vcd.map(|p| CString::new(p.to_string_lossy().as_bytes()).unwrap_or_default());
        let arg = path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        // SAFETY: the shim allocates a model and returns it; `arg` is null or a C string that
        // outlives the call.
        let ptr = unsafe { (c.new)(arg, x_seed) };
        Some(Model {
            ptr,
            free: c.free,
            cycle: c.cycle,
            lanes: core.lanes,
            warps: core.warps,
        })
    }

    /// One clock cycle.
    pub fn cycle(&mut self, inputs: &Inputs) -> Outputs {
        let mut out = Outputs::default();
        // SAFETY: `ptr` is the live model `new` made; both structs are repr(C) as the shim's.
        unsafe { (self.cycle)(self.ptr, inputs, &mut out) };
        out
    }
}

extern "C" {
    fn sgpu_messages(buffer: *mut c_char, capacity: usize) -> usize;
}

/// What the Verilated code of this thread printed since the last call (a failed
/// assertion's report, `$display`): csrc/messages.cpp keeps it.
pub fn messages() -> String {
    let mut buffer = vec![0u8; 64 * 1024];
    // SAFETY: the buffer is writable for its whole length, which is the capacity given.
    let n = unsafe { sgpu_messages(buffer.as_mut_ptr().cast(), buffer.len()) };
    buffer.truncate(n);
    String::from_utf8_lossy(&buffer).into_owned()
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this configuration's `new` and is freed once.
        unsafe { (self.free)(self.ptr) };
    }
}
