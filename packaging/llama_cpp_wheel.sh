#!/usr/bin/env bash
# Installs llama-cpp-python into an environment, built from source for this machine with the
# CMake arguments given (CMAKE_ARGS and the ones named here), from a wheel kept per version and
# arguments under ${COVE_WHEEL_CACHE:-~/.cache/cove/llama-cpp-wheels}.
#   usage: llama_cpp_wheel.sh PYTHON [--isa avx2|avx|sse] [CMAKE_ARG ...]
# Without --isa the build is for this CPU (-march=native). With it, for an x86-64 instruction set
# whatever this CPU has: avx2 is AVX2, FMA and F16C without AVX-512 (x86-64-v3: the processors of
# the last ten years; what bundles are built for), avx and sse are older baselines.
# pip's own wheel cache is not used: it keys a built wheel by the source alone, so it would hand a
# build made with other arguments (CUDA, another instruction set) back to a later install.
#
# On x86-64, AMX is left out of every build: llama.cpp's AMX matrix products crash in their first
# use on some Xeon (Sapphire Rapids) machines (ggml-org/llama.cpp#20824), and desktop CPUs have
# no AMX to gain from. The flags go to the compiler (CFLAGS, CXXFLAGS): a native build
# (-march=native) takes the CPU's AMX otherwise, whatever ggml's own GGML_AMX_* options say.
set -euo pipefail
python=${1:?usage: llama_cpp_wheel.sh PYTHON [--isa avx2|avx|sse] [CMAKE_ARG ...]}
shift
isa=""
if [[ ${1:-} == --isa ]]; then
  isa=${2:?--isa needs avx2, avx or sse}
  shift 2
fi
args=()
common="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_INT8=OFF"
case $isa in
  "") ;;
  avx2) args=($common -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON) ;;
  avx) args=($common -DGGML_AVX=ON -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF) ;;
  sse) args=($common -DGGML_SSE42=ON -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF
             -DGGML_BMI2=OFF) ;;
  *) echo "llama_cpp_wheel: unknown instruction set '$isa' (avx2, avx or sse)" >&2; exit 2 ;;
esac
# ggml's RPC backend: one model's layers on several machines (`cove worker`, docs/REMOTE.md).
args+=(-DGGML_RPC=ON "$@")
flags=""
if [[ $(uname -m) == x86_64 ]]; then
  flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
# The user's own arguments (CUDA, Metal) come first; ours are added.
cmake_args="${CMAKE_ARGS:-} ${args[*]}"
spec=$(sed -n 's/^ *"\(llama-cpp-python[^"]*\)",$/\1/p' "$(dirname "$0")/../pyproject.toml" | head -n 1)
[[ -n $spec ]] || { echo "llama_cpp_wheel: no llama-cpp-python requirement in pyproject.toml" >&2; exit 1; }
cache=${COVE_WHEEL_CACHE:-$HOME/.cache/cove/llama-cpp-wheels}
mkdir -p "$cache/src"
# The newest source release the requirement allows (pip's download cache keeps it).
"$python" -m pip download --quiet --no-deps --no-binary :all: -d "$cache/src" "$spec" >&2
sdist=$(ls -t "$cache/src"/llama_cpp_python-*.tar.gz | head -n 1)
version=$(basename "$sdist" .tar.gz | sed 's/^llama_cpp_python-//')
# A native build is for this CPU only: its features are part of the key (a home folder shared
# between machines must not hand one machine's build to another).
cpu=$(grep -m 1 '^flags' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null || uname -m)
key=$(printf '%s\n%s\n%s\n%s\n%s\n' "$version" "$cmake_args" "$flags" "$cpu" \
  "$("$python" -c 'import sys; print(sys.version)')" \
  | sha256sum | cut -c1-16)
wheels=$cache/$version-$key
marker=$("$python" -c 'import sys; print(sys.prefix)')/.cove-llama-cpp
if [[ -f $marker && $(cat "$marker") == "$key" ]]; then
  exit 0  # this environment already has this build
fi
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "Building llama.cpp $version for this machine (about five minutes on two cores, once)…" >&2
  rm -rf "$wheels.tmp"
  CMAKE_ARGS="$cmake_args" CFLAGS="${CFLAGS:-} $flags" CXXFLAGS="${CXXFLAGS:-} $flags" \
    "$python" -m pip wheel --quiet --no-deps --no-cache-dir \
    -w "$wheels.tmp" "$sdist" >&2
  rm -rf "$wheels"
  mv "$wheels.tmp" "$wheels"
fi
"$python" -m pip install --quiet --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl >&2
echo "$key" > "$marker"
