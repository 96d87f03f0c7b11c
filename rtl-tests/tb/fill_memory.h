// The memory behind the instruction cache in the closed-loop testbenches (icache_tb.cpp,
// frontend_tb.cpp): a code image at `base`, `code_lines` lines of 32 bytes, one of which
// (`bad_line`) answers its reads with an error; fills accepted when a random ready allows
// and answered in order after a random latency; each fill checked to read a whole line of
// the code, its two halves in order.
#pragma once
#include <cstdint>
#include <deque>
#include <random>
#include <utility>

// The instruction word at byte `offset` of the code at `base`: a hash, so that another code
// image (a flush) has other words.
inline uint64_t word_at(uint64_t base, uint64_t offset) {
    uint64_t x = (base ^ 0x9e3779b97f4a7c15ull) + offset * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    return x * 0x94d049bb133111ebull;
}

template <class Model>
struct FillMemory {
    uint64_t base;
    uint32_t code_lines, bad_line;
    uint64_t (*word)(uint64_t base, uint64_t offset) = word_at;
    std::deque<std::pair<uint64_t, uint64_t>> answers;  // (due cycle, address)
    std::deque<uint64_t> expected;                      // the addresses a fill must read
    uint64_t pending = 0, fills = 0;

    // Nothing asked for or being answered (a flush may come).
    bool idle(const Model& d) const { return !d.mem_req_valid_o && pending == 0 && expected.empty(); }

    // This cycle's inputs: ready, and the answer due if any.
    void drive(Model& d, std::mt19937_64& rng, uint64_t t) {
        d.mem_req_ready_i = rng() % 3 != 0;
        bool answer = !answers.empty() && answers.front().first <= t;
        d.mem_rsp_valid_i = answer;
        if (!answer) return;
        uint64_t a = answers.front().second;
        uint64_t lo = word(base, a - base), hi = word(base, a + 8 - base);
        d.mem_rsp_err_i = (a - base) / 32 == bad_line;
        for (int k = 0; k < 2; ++k) {
            d.mem_rsp_data_i[k] = static_cast<uint32_t>(lo >> (32 * k));
            d.mem_rsp_data_i[2 + k] = static_cast<uint32_t>(hi >> (32 * k));
        }
        answers.pop_front();
        --pending;
    }

    // This cycle's request, after eval: what is wrong with it, or null.
    const char* observe(const Model& d, std::mt19937_64& rng, uint64_t t) {
        if (!d.mem_req_valid_o || !d.mem_req_ready_i) return nullptr;
        uint64_t a = d.mem_req_addr_o;
        if (expected.empty()) {
            if (a % 32 != 0 || a < base || a >= base + code_lines * 32ull)
                return "a fill outside the code or not at a line's start";
            expected.push_back(a);
            expected.push_back(a + 16);
            ++fills;
        }
        if (a != expected.front()) return "a fill's halves out of order";
        expected.pop_front();
        answers.emplace_back(t + 1 + rng() % 20, a);
        ++pending;
        return nullptr;
    }
};
