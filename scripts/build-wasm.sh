#!/usr/bin/env bash
# Builds the browser app's WebAssembly, split into a core module and lazily
# loaded chunks. Trunk runs this as its build hook (Trunk.toml); Trunk itself
# handles the HTML, CSS and static files, and has no splitting step.
#
#   cargo build (wasm32, relocations kept)
#   → wasm-split-cli   the core module + one chunk per split point (#[wasm_split])
#   → wasm-bindgen     the JS glue for the core module
#   → wasm-opt -Oz     every module (release only)
#
# Output: roundtable-app.js, roundtable-app_bg.wasm, __wasm_split.js and the
# chunks, in $TRUNK_STAGING_DIR (or the directory given as $1).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

OUT="${1:-${TRUNK_STAGING_DIR:?run through trunk, or pass an output directory}}"
PROFILE="${TRUNK_PROFILE:-release}"
NAME=roundtable-app
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

die() { printf '\033[1;31m[build-wasm] %s\033[0m\n' "$*" >&2; exit 1; }
for tool in wasm-split-cli wasm-bindgen; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing: run \`make setup\` (scripts/setup.sh installs it)."
done

build_worker() { # target dir, rustflags, output dir (see the model worker's part below)
  CARGO_TARGET_DIR="$1" RUSTFLAGS="$2" \
    cargo rustc --locked --manifest-path crates/llm-worker/Cargo.toml --lib --target wasm32-unknown-unknown --release \
    --crate-type cdylib
  wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
    --out-dir "$3" --out-name llm_worker "$1/wasm32-unknown-unknown/release/llm_worker.wasm"
}

# The model worker's two builds (below) start first and run beside the
# app's: the app's last crate and its link-time optimisation keep one core
# busy for minutes while the other would idle. Each has its own target
# directory and log, printed when it ends.
WORKER_LOGS="$TARGET_DIR/wasm-split/worker-logs"
mkdir -p "$WORKER_LOGS"
rm -rf "$OUT/llm-worker" && mkdir -p "$OUT/llm-worker/relaxed"
worker_started() { # log name, then build_worker's arguments
  local log="$WORKER_LOGS/$1.log"; shift
  build_worker "$@" >"$log" 2>&1 &
}

declare -A WORKER_PIDS
# The app's build failing ends the script: its workers' builds end with it.
trap 'for p in "${WORKER_PIDS[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done' EXIT
worker_started simd128 "$TARGET_DIR/llm-worker" "-Ctarget-feature=+simd128" "$OUT/llm-worker"
WORKER_PIDS[simd128]=$!
worker_started relaxed "$TARGET_DIR/llm-worker-relaxed" "-Ctarget-feature=+simd128,+relaxed-simd" "$OUT/llm-worker/relaxed"
WORKER_PIDS[relaxed]=$!

CARGO_ARGS=(--locked --target wasm32-unknown-unknown --bin "$NAME" --features app)
[ "$PROFILE" = release ] && CARGO_ARGS+=(--release)
cargo build "${CARGO_ARGS[@]}"
RAW="$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/$NAME.wasm"

WORK="$TARGET_DIR/wasm-split/$PROFILE"
rm -rf "$WORK" && mkdir -p "$WORK/split" "$WORK/bindgen"
wasm-split-cli --target web --out-name "$NAME" "$RAW" "$WORK/split" >/dev/null
# The core module keeps the exports the chunks link against (memory, table,
# shared functions): --keep-lld-exports.
wasm-bindgen --target web --keep-lld-exports --no-typescript \
  --out-dir "$WORK/bindgen" --out-name "$NAME" "$WORK/split/$NAME.wasm"

mkdir -p "$OUT"
rm -f "$OUT"/*.wasm "$OUT/$NAME.js" "$OUT/__wasm_split.js"
cp "$WORK/bindgen/$NAME.js" "$WORK/split/__wasm_split.js" "$OUT/"
modules=("$WORK/bindgen/${NAME}_bg.wasm")
for chunk in "$WORK"/split/*.wasm; do
  [ "$(basename "$chunk")" = "$NAME.wasm" ] || modules+=("$chunk")
done
# The features Rust's wasm32 target emits, with SIMD (.cargo/config.toml; binaryen must not add others, e.g.
# compact imports, which browsers reject).
FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd)
# ROUNDTABLE_WASM_NAMES=1 keeps function names (for profiling in DevTools).
STRIP=(--strip-debug --strip-producers)
[ -n "${ROUNDTABLE_WASM_NAMES:-}" ] && STRIP=(-g)
# binaryen merges a function into its caller when it has only one, at any
# size by default. That made giant functions (a coordinator view's fold, the
# Markdown renderer: 13-35 KB each) which V8 charges in full on every call and
# recompiles with TurboFan on a worker while a link opens, taking a core from
# the page: capped, TurboFan's CPU per open fell 436 -> 212 ms (ACT demo run)
# and 172 -> 70 (travel); opened 0.87 / 0.91x (ACT), 0.89x (MAEL), 1.04 /
# 0.98x (travel), 0.96x (lesson) pairwise; +2 KB gzip in all.
INLINE=(--one-caller-inline-max-function-size=500)
if [ "$PROFILE" = release ]; then
  # Two modules at a time: binaryen keeps about one core busy on each of
  # the ~70 small chunks (xargs fails if any one does).
  printf '%s\n' "${modules[@]}" | OUT="$OUT" xargs -P 2 -I{} \
    sh -c 'wasm-opt "$@" "$0" -o "$OUT/$(basename "$0")"' {} -Oz "${INLINE[@]}" "${FEATURES[@]}" "${STRIP[@]}"
else
  cp "${modules[@]}" "$OUT/"
fi
printf '[build-wasm] %s: core + %d chunks in %s\n' "$PROFILE" $(( ${#modules[@]} - 1 )) "$OUT"

# The in-browser model's worker (crates/llm-worker): a wasm of its own,
# fetched only when "Local model (in this browser)" is first used. Always
# release with opt-level 3 and SIMD (its matrix kernels), its own target
# directory and rustflags: RUSTFLAGS replaces .cargo/config.toml's (the
# app's relocations, kept for its split, were 2.3 MB of this wasm; the
# per-target variable would be merged with them, not replace them), and no
# wasm-opt (measured: the same size gzipped, ten minutes on 2 cores).
#
# Two builds: simd128 for every browser, and one that also uses relaxed
# SIMD (its byte dot products, x86's pmaddubsw: the 4-, 5- and 6-bit
# legacy and K-quant kernels) for browsers that have it (Chromium 114+). worker.js picks one
# with web/llm-worker/simd-probe.mjs (copied beside it), which runs the two
# relaxed dot products on known sums rather than only validating them (an
# engine may validate them and sum wrong); `?simd=simd128` on its URL
# forces the first (the bench times both). Each build has its own target directory, so
# neither rebuilds the other.
for build in simd128 relaxed; do
  wait "${WORKER_PIDS[$build]}" && ok=1 || ok=0
  cat "$WORKER_LOGS/$build.log"
  [ "$ok" = 1 ] || die "the model worker's $build build failed (its output is above)"
done
cp web/llm-worker/simd-probe.mjs "$OUT/llm-worker/simd-probe.mjs"
cat > "$OUT/llm-worker/worker.js" <<'JS'
// The in-browser model's worker: loads its wasm, whose start function
// installs the message loop and posts "ready" (platform::local_model).
// The relaxed-SIMD build where the browser's relaxed dot products give
// the right sums (simd-probe.mjs), else the simd128 one; helper workers
// load this same URL, so they get the same build.
const forced = new URL(import.meta.url).searchParams.get("simd");
async function load(dir) {
  const build = await import(dir + "llm_worker.js");
  await build.default({ module_or_path: new URL(dir + "llm_worker_bg.wasm", import.meta.url) });
  return build;
}
let build;
if (forced) build = await load(forced === "relaxed" ? "./relaxed/" : "./");
else {
  // A host that left the probe out still gets the model, on simd128.
  const simd = await import("./simd-probe.mjs").then((p) => p.relaxedSimd(), (e) => {
    console.warn("the model worker's SIMD probe did not load, using the simd128 build:", e);
    return "unknown";
  });
  if (simd === "relaxed") {
    // A host that left the relaxed build out, or a browser that validates
    // but cannot compile it, still gets the model.
    build = await load("./relaxed/").catch((e) => {
      console.warn("the relaxed-SIMD model worker did not load, using the simd128 one:", e);
      return load("./");
    });
  } else {
    if (simd === "wrong") console.warn("this browser's relaxed-SIMD dot products sum wrong; the model worker uses its simd128 build");
    build = await load("./");
  }
}
build.start();
JS
printf '[build-wasm] model worker: %s KB, relaxed SIMD %s KB, in %s/llm-worker\n' \
  $(( $(stat -c %s "$OUT/llm-worker/llm_worker_bg.wasm") / 1024 )) \
  $(( $(stat -c %s "$OUT/llm-worker/relaxed/llm_worker_bg.wasm") / 1024 )) "$OUT"
