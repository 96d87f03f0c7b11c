// See messages.h. Each thread keeps its own: a model runs on the thread that made it.
#include "messages.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

static thread_local std::string kept;

extern "C" void sgpu_printf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (length > 0) {
        std::string text(static_cast<size_t>(length) + 1, '\0');
        std::vsnprintf(text.data(), text.size(), format, again);
        text.pop_back();
        kept += text;
    }
    va_end(again);
}

extern "C" size_t sgpu_messages(char* buffer, size_t capacity) {
    const size_t n = kept.size() < capacity ? kept.size() : capacity;
    std::memcpy(buffer, kept.data(), n);
    kept.clear();
    return n;
}
