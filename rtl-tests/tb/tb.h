// What the testbenches of tb/ share: opening the file of cases named in their one argument.
#pragma once
#include <cstdio>

// The file named by the one argument, or null after saying why (the caller exits with 2).
inline std::FILE* open_cases(int argc, char** argv, const char* what) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s %s\n", argv[0], what);
        return nullptr;
    }
    std::FILE* in = std::fopen(argv[1], "r");
    if (!in) std::perror(argv[1]);
    return in;
}
