//! Verilator tests of the sgpu RTL; the tests are in `tests/`, the C++ testbenches they build
//! in `tb/`.
