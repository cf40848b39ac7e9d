#!/usr/bin/env bash
# `make bench` only (never `make test`): native llama.cpp built from PyPI's
# llama-cpp-python source package (its vendored llama.cpp, pinned by
# SHA-256), then the CLI's engine (gguf-speed) beside it on the same files
# and threads, interleaved, printed as ratios (e2e/native-bench.mjs).
#
#   bash scripts/llama-bench.sh            build what is missing, print the table
#   bash scripts/llama-bench.sh --build    build only; print llama-bench's path
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.3.36
SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
URL=https://files.pythonhosted.org/packages/ec/e9/e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-$VERSION.tar.gz
DIR="$PWD/target/llama.cpp"
SRC="$DIR/llama_cpp_python-$VERSION/vendor/llama.cpp"
BENCH="$SRC/build/bin/llama-bench"
mkdir -p "$DIR"

if [ ! -x "$BENCH" ]; then
  TARBALL="$DIR/llama_cpp_python-$VERSION.tar.gz"
  if [ ! -f "$TARBALL" ] || ! echo "$SHA256  $TARBALL" | sha256sum -c --quiet - 2>/dev/null; then
    echo "fetching llama-cpp-python $VERSION's source package (llama.cpp inside) from PyPI"
    curl -fsSL --retry 3 -o "$TARBALL.part" "$URL"
    echo "$SHA256  $TARBALL.part" | sha256sum -c --quiet -
    mv "$TARBALL.part" "$TARBALL"
  fi
  [ -f "$SRC/CMakeLists.txt" ] || tar xzf "$TARBALL" -C "$DIR" "llama_cpp_python-$VERSION/vendor/llama.cpp"
  CMAKE=cmake
  if ! command -v cmake >/dev/null; then
    # CMake from PyPI's wheel, kept in target/ (no system package needed).
    [ -x "$DIR/cmake-py/bin/cmake" ] ||
      python3 -m pip install --quiet --disable-pip-version-check --target "$DIR/cmake-py" "cmake==3.31.6"
    export PYTHONPATH="$DIR/cmake-py${PYTHONPATH:+:$PYTHONPATH}"
    CMAKE="$DIR/cmake-py/bin/cmake"
  fi
  echo "building llama-bench (native, this CPU's instruction set; a few minutes on 2 cores)"
  "$CMAKE" -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF >/dev/null
  "$CMAKE" --build "$SRC/build" --target llama-bench -j "$(nproc)" >/dev/null
fi
if [ "${1:-}" = "--build" ]; then
  echo "$BENCH"
  exit 0
fi

CARGO_TARGET_DIR="$PWD/target/llm-worker" cargo build --locked --release --quiet \
  --manifest-path crates/llm-worker/Cargo.toml --bin gguf-speed
CARGO_TARGET_DIR="$PWD/target/llm-worker" cargo build --locked --quiet \
  --manifest-path crates/llm-worker/Cargo.toml --features fixtures --bin tiny-gguf
MODELS="$PWD/target/bench-models"
mkdir -p "$MODELS"
# The tests' real file, and files of the same shapes with random weights
# (llama.cpp reads them as it reads the real one).
[ -f "$MODELS/smollm2-135m.q8_0.gguf" ] ||
  target/llm-worker/debug/tiny-gguf random "$MODELS/smollm2-135m.q8_0.gguf" smollm2-135m q8_0
[ -f "$MODELS/qwen2.5-0.5b.q4_1.gguf" ] ||
  target/llm-worker/debug/tiny-gguf random "$MODELS/qwen2.5-0.5b.q4_1.gguf" qwen2.5-0.5b q4_1
# llama.cpp's OpenMP threads spin while they wait, which on a busy 2-core
# machine takes the other side's time; its CPU repacking (AMX on some
# Xeons) is off, as its crash there is not what is measured.
OMP_WAIT_POLICY=passive node e2e/native-bench.mjs "$BENCH" target/llm-worker/release/gguf-speed \
  "$(bash scripts/setup.sh --model-path)" "$MODELS/smollm2-135m.q8_0.gguf" "$MODELS/qwen2.5-0.5b.q4_1.gguf"
