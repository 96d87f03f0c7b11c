// Every SystemVerilog source of the soft GPU, packages first: the one list that lint.sh,
// the Verilator builds of rtl-tests/ and the yosys scripts read.
sgpu_isa_pkg.sv
sgpu_core_pkg.sv
sgpu_mufu_pkg.sv
sgpu_ram.sv
sgpu_predecode.sv
sgpu_int_alu.sv
sgpu_video_alu.sv
sgpu_fma.sv
sgpu_fcmp.sv
sgpu_cvt.sv
sgpu_surface_pack.sv
sgpu_surface_unit.sv
sgpu_int_div.sv
sgpu_tid_step.sv
sgpu_lsu_addr.sv
sgpu_atom_alu.sv
sgpu_mem_return.sv
sgpu_f2f.sv
sgpu_warp_unit.sv
sgpu_atom_float.sv
sgpu_fdiv.sv
sgpu_mufu.sv
sgpu_regfile.sv
sgpu_scoreboard.sv
sgpu_core.sv
