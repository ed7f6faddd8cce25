#!/usr/bin/env bash
# tests/scripts/step_variants.sh SOURCE_DIR BUILD_DIR: scripts/step-variants links the variant it compiled.
# A variant of the serial vector add that subtracts must fail the runner's check where the build's own
# binary passes; were the library's object linked in place of the variant's, both would pass. The same
# for a variant whose text comes from another file (--from). An expression that changes nothing must be
# refused.
set -uo pipefail
source_dir=$1
build=$2
step=$source_dir/src/cpu/elementwise/01_vecadd_serial.cpp
run() { "$1" bench elementwise -v '*cpu/01_vecadd*' -s 1001 -r 1 --warmup 0 -q --device cpu --quick-ceilings 2>&1; }

if "$source_dir/scripts/step-variants" "$build" "$step" unchanged 's/no such text/other text/' 2>/dev/null; then
  echo "FAIL: an expression that changes nothing was accepted"; exit 1
fi
"$source_dir/scripts/step-variants" "$build" "$step" subtracts 's/c\[i\] = a\[i\] + b\[i\]/c[i] = a[i] - b[i]/' || exit 1
base=$(run "$build/swath")
variant=$(run "$build/variants/subtracts/swath")
sed 's/c\[i\] = a\[i\] + b\[i\]/c[i] = a[i] - b[i]/' "$step" >"$build/step_variants_from.cpp"
"$source_dir/scripts/step-variants" "$build" "$step" from_file --from "$build/step_variants_from.cpp" || exit 1
from_file=$(run "$build/variants/from_file/swath")
echo "build's own binary:"; echo "$base"
echo "the variant:"; echo "$variant"
echo "$base" | grep -q "01_vecadd_serial .* ok " || { echo "FAIL: the build's own binary did not pass"; exit 1; }
echo "$variant" | grep -q "01_vecadd_serial .* ok " && { echo "FAIL: the variant passed: its object was not the one linked"; exit 1; }
echo "$variant" | grep -q "failed" || { echo "FAIL: the variant's row did not fail its check"; exit 1; }
echo "the variant from a file:"; echo "$from_file"
echo "$from_file" | grep -q "failed" || { echo "FAIL: the variant from a file did not fail its check"; exit 1; }
echo "PASS"
