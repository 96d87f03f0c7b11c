#!/usr/bin/env bash
# Seeds the fuzzer with the small files of the corpus and the fixtures.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/front_end
find ../../shared/corpus ../tests/fixtures -name '*.ptx' -size -16k -exec cp {} corpus/front_end/ \;
echo "seeded $(ls corpus/front_end | wc -l) inputs"
