#!/usr/bin/env bash
# Every test of Roundtable: lint, native, mock server, wasm in Chromium,
# the release build, and end-to-end in Chromium. Called by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=120
# One clean build per run: incremental caches would only add gigabytes.
export CARGO_INCREMENTAL=0

# The in-browser model's crate (crates/llm-worker): its own lock and target
# directory; its wasm gets SIMD and none of the app's rustflags.
WORKER=(--manifest-path crates/llm-worker/Cargo.toml --locked)
worker_cargo() { CARGO_TARGET_DIR="$PWD/target/llm-worker" cargo "$@"; }
worker_wasm() { RUSTFLAGS="-Ctarget-feature=+simd128" worker_cargo "$@"; }
# Its second build, with relaxed SIMD too: a target directory of its own.
worker_relaxed() {
  CARGO_TARGET_DIR="$PWD/target/llm-worker-relaxed" RUSTFLAGS="-Ctarget-feature=+simd128,+relaxed-simd" cargo "$@"
}

# A command run in the background beside a step's others, its output kept
# in a file and printed when it is joined: a cargo build of the app keeps
# one core busy for minutes at a time (its one large crate, its links), and
# the worker's builds (their own target directories) fill the other.
beside() { # log file, command...
  local log="$1"; shift
  mkdir -p "$(dirname "$log")"
  "$@" >"$log" 2>&1 &
  BESIDE_PID=$!
}
joined() { # pid, log file: its output, and its exit status
  local rc=0
  wait "$1" || rc=$?
  cat "$2"
  [ "$rc" = 0 ] || printf '\033[1;31m✗ %s failed (exit %s)\033[0m\n' "$2" "$rc"
  return "$rc"
}

step() { printf '\n\033[1;34m━━ %s\033[0m\n' "$*"; STEP_NAME="$*"; STEP_START=$(date +%s); }
TIMES=()
done_step() {
  local took=$(( $(date +%s) - STEP_START ))
  TIMES+=("$took $1")
  printf '\033[0;32m✓ %s (%ss)\033[0m\n' "$1" "$took"
}
RUN_START=$(date +%s)

MOCK_PID=""
STEP_NAME=""
# On failure, the last lines say which step failed and what the machine had
# left (a full disk or memory shows here, not only in the tool's own error).
report() {
  local rc=$?
  [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null
  if [ "$rc" -ne 0 ]; then
    printf '\n\033[1;31m✗ %s failed (exit %s)\033[0m\n' "${STEP_NAME:-setup}" "$rc"
    printf 'disk: %s\n' "$(df -h . | tail -1)"
    printf 'memory: %s\n' "$(free -m 2>/dev/null | sed -n 2p)"
    printf 'target/: %s\n' "$(du -sh target 2>/dev/null | cut -f1)"
  fi
}
trap report EXIT

step "lint: rustfmt and clippy (native and wasm32)"
cargo fmt --check
cargo fmt --check --manifest-path crates/llm-worker/Cargo.toml
worker_lint() {
  worker_cargo clippy "${WORKER[@]}" --all-targets -- -D warnings &&
    worker_wasm clippy "${WORKER[@]}" --target wasm32-unknown-unknown --all-targets -- -D warnings &&
    worker_relaxed clippy "${WORKER[@]}" --target wasm32-unknown-unknown --all-targets -- -D warnings
}
beside target/logs/worker-lint.log worker_lint
LINT_PID=$BESIDE_PID
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --target wasm32-unknown-unknown --all-targets --features app --locked -- -D warnings
joined "$LINT_PID" target/logs/worker-lint.log
done_step lint

step "native tests (engine, providers' wire formats, CLI over HTTP, share links, TravelPlanner)"
# Built first, the worker's native tests beside them (run in their step).
worker_built() {
  worker_cargo test "${WORKER[@]}" --no-run &&
    worker_cargo build "${WORKER[@]}" --features fixtures --bin tiny-gguf
}
beside target/logs/worker-tests.log worker_built
WORKER_PID=$BESIDE_PID
cargo test --locked --no-run
joined "$WORKER_PID" target/logs/worker-tests.log
SHARED="${ROUNDTABLE_SHARED:-$PWD/../shared}"
if [ -d "$SHARED/travelplanner" ]; then
  export ROUNDTABLE_SHARED="$SHARED"
  cargo test --locked -- --skip real_model_
else
  printf '\n\033[1;33m!!! SKIPPING the shared_* tests (TravelPlanner parity, real database import):\n!!! %s/travelplanner was not found. Set ROUNDTABLE_SHARED to run them.\033[0m\n\n' "$SHARED"
  cargo test --locked -- --skip shared_ --skip real_model_
fi
done_step "native tests"

step "real-model suite (SmolLM2-135M-Instruct Q4_1 in-process: every coordinator through the CLI; the forward pass against llama.cpp's)"
# The file scripts/setup.sh --browser fetched (make test runs it first).
ROUNDTABLE_REAL_MODEL="$(bash scripts/setup.sh --model-path)" \
  cargo test --locked --test real_model --test llama_cpp_reference -- --test-threads 1 --nocapture
done_step "real-model suite"

step "native tests of the in-browser model (GGUF models written by the tests, candle, tokenizer, template)"
worker_cargo test "${WORKER[@]}"
worker_cargo build "${WORKER[@]}" --features fixtures --bin tiny-gguf
done_step "model tests"

step "mock LLM server tests; the model worker's SIMD probe"
node --test e2e/mock-llm.test.mjs
# The model worker's pick of its build (stand-in engines; Chromium's own
# in e2e/local-cores.spec.mjs).
node --test e2e/simd-probe.test.mjs
done_step "mock server tests; the SIMD probe"

step "HumanEval harness (Pyodide in Node and in a Chromium worker: canonical and broken solutions, the lockdown)"
node --test --test-concurrency=1 e2e/humaneval.test.mjs
done_step "HumanEval harness"

step "wasm tests in headless Chromium and Node (key storage, fetch against the mock; the model worker on OPFS; the SIMD kernels, simd128 and relaxed)"
# The worker's wasm tests are compiled beside the app's (below), run after.
WORKER_WASM_TESTS=(--test worker_opfs --test kernels_legacy --test kernels_k --test kernels_batch --test attention --test split --test constrain)
RELAXED_TESTS=(--test kernels_legacy --test kernels_k --test kernels_batch --test attention)
worker_wasm_built() {
  worker_wasm test "${WORKER[@]}" --target wasm32-unknown-unknown --no-run "${WORKER_WASM_TESTS[@]}" &&
    worker_relaxed test "${WORKER[@]}" --target wasm32-unknown-unknown --no-run "${RELAXED_TESTS[@]}"
}
beside target/logs/worker-wasm-tests.log worker_wasm_built
WASM_PID=$BESIDE_PID
exec 3< <(node e2e/mock-llm.mjs --port 0 --delay 5)
MOCK_PID=$!
read -r line <&3
export ROUNDTABLE_MOCK_URL="${line#MOCK_LLM_URL=}"
echo "mock LLM server at $ROUNDTABLE_MOCK_URL"
cargo test --locked --target wasm32-unknown-unknown --test browser
kill "$MOCK_PID" 2>/dev/null || true
MOCK_PID=""
joined "$WASM_PID" target/logs/worker-wasm-tests.log
worker_wasm test "${WORKER[@]}" --target wasm32-unknown-unknown --test worker_opfs
# The quantised kernels: SIMD against scalar on random and edge blocks, in
# wasm with simd128 (run in Node's V8; natively only the scalar code runs);
# the attention kernel against the plain formula; a forward pass split over
# several parts against the whole model, to the bit with the browser's kernels;
# constrained decoding (a schema held by llguidance's masks, its clock included).
worker_wasm test "${WORKER[@]}" --target wasm32-unknown-unknown --test kernels_legacy --test kernels_k --test kernels_batch --test attention --test split --test constrain
# The same kernel tests in the worker's relaxed-SIMD build (its own target
# directory), in headless Chromium: the browser that build is for. Node 20
# has relaxed SIMD behind a flag, and on CPUs with AVX-VNNI its V8 returns
# twice the sum from i32x4.relaxed_dot_i8x16_i7x16_add_s (Chromium 156 on
# the same CPU sums right; the worker's simd-probe.mjs keeps such engines
# on the simd128 build).
WASM_BINDGEN_USE_BROWSER=1 WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/webdriver.json" \
  worker_relaxed test "${WORKER[@]}" --target wasm32-unknown-unknown --test kernels_legacy --test kernels_k --test kernels_batch --test attention
done_step "wasm tests"

step "release build (trunk + wasm-opt)"
trunk build --release
done_step "release build"

step "end-to-end tests in Chromium (Playwright)"
# The specs that run a model in the page or time the page (its cores, its
# loading) run one at a time; the others two at a time (each has its own
# servers on ports the OS picks and its own browser): measured 673 s where
# one at a time took about 790.
SERIAL=() PAIRED=()
for spec in e2e/*.spec.mjs; do
  case "$(basename "$spec" .spec.mjs)" in
    real-model | local-model | local-loop | local-cores | llama-cpp-parity | model-store | loading) SERIAL+=("$spec") ;;
    *) PAIRED+=("$spec") ;;
  esac
done
node --test --test-concurrency=2 "${PAIRED[@]}"
ROUNDTABLE_REAL_MODEL="$(bash scripts/setup.sh --model-path)" node --test --test-concurrency=1 "${SERIAL[@]}"
done_step "end-to-end tests"
echo
# Where the time went: each step's seconds and share of the whole run.
total=$(( $(date +%s) - RUN_START ))
printf '%s\n' "${TIMES[@]}" | while read -r took name; do
  printf '  %5ss  %3s%%  %s\n' "$took" $(( 100 * took / (total > 0 ? total : 1) )) "$name"
done
echo "  ${total}s in all"
echo "All tests passed. Screenshots: $PWD/e2e/screenshots/ (target/: $(du -sh target 2>/dev/null | cut -f1))"
