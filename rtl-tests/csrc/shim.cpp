// The C face of one Verilated configuration of hw/sgpu_core.sv, for rtl-tests' Rust harness
// (src/model.rs): make and free a model, and run one clock cycle with the inputs given,
// reporting the outputs of that cycle (sampled before the rising edge, so that what the core
// asks in a cycle and what the harness answered in it belong together). The build script
// compiles this file once per configuration with SGPU_TOP (the Verilated class) and
// SGPU_NAME (the functions' prefix) defined.
//
// The models are Verilated with --assert and --x-initial unique: a failing assertion does
// not abort the process but is reported in the cycle's outputs (`assert_failed`, with
// Verilator's message on standard output), and a model made with a nonzero seed starts with
// every register that reset does not set at a random value of that seed (X checking). A
// model Verilated with --trace (SGPU_TRACE defined) writes a waveform when given a path; the
// gate-level netlist's has none.
#include <cstdint>
#include <cstring>
#include <memory>

#include "verilated.h"
#ifdef SGPU_TRACE
#include "verilated_vcd_c.h"
#endif
#include SGPU_HEADER

#define SGPU_CAT2(a, b) a##b
#define SGPU_CAT(a, b) SGPU_CAT2(a, b)
#define SGPU_FN(x) SGPU_CAT(SGPU_NAME, x)

// Word `i` (32 bits) of a flat vector port: Verilator gives a port of up to 64 bits as an
// integer and a wider one as VlWide, and the retirement port's lane data is either with the
// lane count.
template <typename T>
static uint32_t word_of(const T& port, int i) {
    return static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * i));
}
template <std::size_t N>
static uint32_t word_of(const VlWide<N>& port, int i) {
    return port[i];
}

// Keep in step with `Inputs` and `Outputs` in src/model.rs (repr(C)).
struct SgpuInputs {
    uint64_t imem_wdata;
    uint64_t surf_table;
    uint32_t imem_addr;
    uint32_t code_words;
    uint32_t entry;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared;
    uint32_t dyn_shared;
    uint32_t local;
    uint32_t surf_count;
    uint32_t mem_rsp_rdata[4];
    uint16_t mem_rsp_tag;
    uint8_t rst_n;
    uint8_t imem_we;
    uint8_t start;
    uint8_t mem_req_ready;
    uint8_t mem_rsp_valid;
    uint8_t mem_rsp_err;
    uint8_t fault;
};

struct SgpuOutputs {
    uint64_t mem_req_addr;
    uint64_t rvfi_order;
    uint64_t rvfi_word;
    uint64_t rvfi_st_addr;
    uint32_t trap_pc;
    uint32_t mem_req_wdata[4];
    uint32_t rvfi_pc;
    uint32_t rvfi_active;
    uint32_t rvfi_mask;
    uint32_t rvfi_next_pc;
    uint32_t rvfi_next_active;
    uint32_t rvfi_pred_val[2];
    uint32_t rvfi_carry;
    uint32_t rvfi_clock;
    uint32_t rvfi_rf_lanes;
    uint32_t rvfi_rf_data[32];
    uint32_t rvfi_st_data[4];
    uint32_t rvfi_cta_idx[3];
    uint32_t rvfi_bar_released;
    uint32_t rvfi_bar_value;
    uint32_t rvfi_lw_data;
    uint16_t mem_req_thread;
    uint16_t mem_req_tag;
    uint16_t mem_req_be;
    uint8_t busy;
    uint8_t done;
    uint8_t trap_cause;
    uint8_t trap_warp;
    uint8_t mem_req_valid;
    uint8_t mem_req_write;
    uint8_t mem_req_space;
    uint8_t rvfi_valid;
    uint8_t rvfi_warp;
    uint8_t rvfi_exited;
    uint8_t rvfi_pred_we;
    uint8_t rvfi_pred_idx[2];
    uint8_t rvfi_carry_we;
    uint8_t rvfi_rf_we;
    uint8_t rvfi_rf_reg;
    uint8_t rvfi_rf_lane0;
    uint8_t rvfi_st_valid;
    uint8_t rvfi_st_lane;
    uint8_t rvfi_st_space;
    uint8_t rvfi_st_len;
    uint8_t rvfi_cta;
    uint8_t rvfi_bar_valid;
    uint8_t rvfi_bar_id;
    uint8_t rvfi_bar_waits;
    uint8_t rvfi_bar_red;
    uint8_t rvfi_bar_op;
    uint8_t mem_rsp_ready;
    uint8_t rvfi_late;
    uint8_t rvfi_lw_valid;
    uint8_t rvfi_lw_warp;
    uint8_t rvfi_lw_reg;
    uint8_t rvfi_lw_lane;
    uint8_t assert_failed;
};

// The context is set up before the model is made: the model's initial values are drawn
// when it is constructed, from the context of the constructing thread.
struct SgpuModel {
    VerilatedContext context;
    std::unique_ptr<SGPU_TOP> model;
#ifdef SGPU_TRACE
    std::unique_ptr<VerilatedVcdC> vcd;
#endif
    uint64_t time = 0;
};

// The cycle's half into the waveform, if one is written.
static void dump(SgpuModel* m) {
#ifdef SGPU_TRACE
    if (m->vcd) m->vcd->dump(m->time);
#endif
    m->time++;
}

extern "C" {

SgpuModel* SGPU_FN(new)(const char* vcd_path, uint64_t x_seed) {
    auto* m = new SgpuModel;
    m->context.fatalOnError(false);
    if (x_seed != 0) {
        m->context.randReset(2);
        // Verilator's seed is an int, and 0 would mean "from the clock".
        m->context.randSeed(static_cast<int>(x_seed % 0x7fffffff) + 1);
    }
#ifdef SGPU_TRACE
    if (vcd_path) m->context.traceEverOn(true);
#endif
    Verilated::threadContextp(&m->context);
    m->model = std::make_unique<SGPU_TOP>(&m->context);
#ifdef SGPU_TRACE
    if (vcd_path) {
        m->vcd = std::make_unique<VerilatedVcdC>();
        m->model->trace(m->vcd.get(), 99);
        m->vcd->open(vcd_path);
    }
#endif
    return m;
}

void SGPU_FN(free)(SgpuModel* m) {
    m->model->final();
#ifdef SGPU_TRACE
    if (m->vcd) m->vcd->close();
#endif
    delete m;
}

uint32_t SGPU_FN(lanes)() { return SGPU_LANES; }

void SGPU_FN(cycle)(SgpuModel* m, const SgpuInputs* in, SgpuOutputs* out) {
    auto& t = *m->model;
    t.rst_ni = in->rst_n;
    t.imem_we_i = in->imem_we;
    t.imem_addr_i = in->imem_addr;
    t.imem_wdata_i = in->imem_wdata;
    t.start_i = in->start;
    t.code_words_i = in->code_words;
    t.entry_i = in->entry;
    // The sizes' ports are flat vectors, x lowest: grid_i is 3 words, block_i 3 fields of 11
    // bits in one 64-bit word.
    uint64_t block = 0;
    for (int i = 0; i < 3; i++) {
        t.grid_i[i] = in->grid[i];
        block |= uint64_t(in->block[i] & 0x7ff) << (11 * i);
    }
    t.block_i = block;
    t.shared_i = in->shared;
    t.dyn_shared_i = in->dyn_shared;
    t.local_i = in->local;
    t.surf_table_i = in->surf_table;
    t.surf_count_i = in->surf_count;
    t.mem_req_ready_i = in->mem_req_ready;
    t.mem_rsp_valid_i = in->mem_rsp_valid;
    t.mem_rsp_err_i = in->mem_rsp_err;
    t.fault_i = in->fault;
    t.mem_rsp_tag_i = in->mem_rsp_tag;
    for (int i = 0; i < 4; i++) t.mem_rsp_rdata_i[i] = in->mem_rsp_rdata[i];
    t.clk_i = 0;
    t.eval();
    dump(m);

    out->busy = t.busy_o;
    out->done = t.done_o;
    out->trap_cause = t.trap_cause_o;
    out->trap_pc = t.trap_pc_o;
    out->trap_warp = t.trap_warp_o;
    out->mem_req_valid = t.mem_req_valid_o;
    out->mem_req_write = t.mem_req_write_o;
    out->mem_req_space = t.mem_req_space_o;
    out->mem_req_thread = t.mem_req_thread_o;
    out->mem_req_addr = t.mem_req_addr_o;
    out->mem_req_be = t.mem_req_be_o;
    out->mem_req_tag = t.mem_req_tag_o;
    out->mem_rsp_ready = t.mem_rsp_ready_o;
    for (int i = 0; i < 4; i++) out->mem_req_wdata[i] = t.mem_req_wdata_o[i];
    out->rvfi_valid = t.rvfi_valid_o;
    out->rvfi_order = t.rvfi_order_o;
    out->rvfi_warp = t.rvfi_warp_o;
    out->rvfi_pc = t.rvfi_pc_o;
    out->rvfi_word = t.rvfi_word_o;
    out->rvfi_active = t.rvfi_active_o;
    out->rvfi_mask = t.rvfi_mask_o;
    out->rvfi_exited = t.rvfi_exited_o;
    out->rvfi_next_pc = t.rvfi_next_pc_o;
    out->rvfi_next_active = t.rvfi_next_active_o;
    out->rvfi_pred_we = t.rvfi_pred_we_o;
    for (int i = 0; i < 2; i++) {
        out->rvfi_pred_idx[i] = (t.rvfi_pred_idx_o >> (3 * i)) & 7;
        out->rvfi_pred_val[i] = word_of(t.rvfi_pred_val_o, i);
    }
    out->rvfi_carry_we = t.rvfi_carry_we_o;
    out->rvfi_carry = t.rvfi_carry_o;
    out->rvfi_clock = t.rvfi_clock_o;
    out->rvfi_rf_we = t.rvfi_rf_we_o;
    out->rvfi_rf_reg = t.rvfi_rf_reg_o;
    out->rvfi_rf_lane0 = t.rvfi_rf_lane0_o;
    out->rvfi_rf_lanes = t.rvfi_rf_lanes_o;
    for (int i = 0; i < SGPU_LANES; i++) out->rvfi_rf_data[i] = word_of(t.rvfi_rf_data_o, i);
    out->rvfi_st_valid = t.rvfi_st_valid_o;
    out->rvfi_st_lane = t.rvfi_st_lane_o;
    out->rvfi_st_space = t.rvfi_st_space_o;
    out->rvfi_st_addr = t.rvfi_st_addr_o;
    out->rvfi_st_len = t.rvfi_st_len_o;
    for (int i = 0; i < 4; i++) out->rvfi_st_data[i] = t.rvfi_st_data_o[i];
    out->rvfi_cta = t.rvfi_cta_o;
    for (int i = 0; i < 3; i++) out->rvfi_cta_idx[i] = word_of(t.rvfi_cta_idx_o, i);
    out->rvfi_bar_valid = t.rvfi_bar_valid_o;
    out->rvfi_bar_id = t.rvfi_bar_id_o;
    out->rvfi_bar_waits = t.rvfi_bar_waits_o;
    out->rvfi_bar_released = t.rvfi_bar_released_o;
    out->rvfi_bar_value = t.rvfi_bar_value_o;
    out->rvfi_bar_red = t.rvfi_bar_red_o;
    out->rvfi_bar_op = t.rvfi_bar_op_o;
    out->rvfi_late = t.rvfi_late_o;
    out->rvfi_lw_valid = t.rvfi_lw_valid_o;
    out->rvfi_lw_warp = t.rvfi_lw_warp_o;
    out->rvfi_lw_reg = t.rvfi_lw_reg_o;
    out->rvfi_lw_lane = t.rvfi_lw_lane_o;
    out->rvfi_lw_data = t.rvfi_lw_data_o;

    t.clk_i = 1;
    t.eval();
    dump(m);
    out->assert_failed = m->context.gotError();
}

}  // extern "C"
