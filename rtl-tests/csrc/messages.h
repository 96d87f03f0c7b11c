// Verilator's messages ($error, $display, a failed assertion's report) are kept for the
// harness to report with the cycle they came in, not printed: the runtime and every model
// are compiled with VL_PRINTF=sgpu_printf and this header included first (build.rs).
#pragma once
#include <cstddef>

extern "C" void sgpu_printf(const char* format, ...);
// Moves the messages kept since the last call into `buffer` (at most `capacity` bytes, the
// rest dropped) and returns how many bytes it wrote.
extern "C" size_t sgpu_messages(char* buffer, size_t capacity);
