# Roundtable — `make run` serves the app, `make test` runs every test.
# Both install what is missing first (scripts/setup.sh, idempotent).

SHELL := /bin/bash
PORT ?= 8080
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export TRUNK_SKIP_VERSION_CHECK := true

.PHONY: run test build bench dev setup setup-browser clean

## run: install what is missing, build the release app, serve it on http://127.0.0.1:$(PORT) with the live-class relay (`roundtable serve`)
run: build
	cargo build --locked --bin roundtable
	target/debug/roundtable serve --port $(PORT) --dist dist

## test: install what is missing, then lint + native + wasm-in-Chromium + end-to-end tests
test: setup-browser
	bash scripts/test.sh

## build: the optimised app in dist/
build: setup
	trunk build --release

## bench: print benchmark figures (bundle size, time to interactive, the CLI's model beside native llama.cpp, engine overhead, MAEL retrieval / concurrency / learning, ROUGE throughput, the in-browser model's speed, alone and with a core busy), then every goal in one table; last, the in-browser model beside wllama (llama.cpp in wasm) and their greedy texts compared
bench: setup-browser build
	node e2e/bench-figures.mjs --clear
	CARGO_TARGET_DIR=$(CURDIR)/target/llm-worker cargo build --locked --release --manifest-path crates/llm-worker/Cargo.toml --bin gguf-speed
	cargo build --locked --bin roundtable
	target/debug/roundtable shapes --largest > target/largest-shape.json
	target/debug/roundtable shapes --grammar > target/tool-grammar.lark
	@echo "the real model natively (SmolLM2-135M-Instruct Q4_1, every core; weights as stored, the CLI's default, then unpacked to f32 by candle's switch),"
	@echo "each then held to the largest step shape (constrained decoding: decode speed with and without, the first mask's latency):"
	target/llm-worker/release/gguf-speed "$$(bash scripts/setup.sh --model-path)" 200 64 target/largest-shape.json
	@echo "the same, held to the text tool protocol's grammar (every travel tool):"
	target/llm-worker/release/gguf-speed "$$(bash scripts/setup.sh --model-path)" 200 64 target/tool-grammar.lark
	CANDLE_DEQUANTIZE_ALL=1 target/llm-worker/release/gguf-speed "$$(bash scripts/setup.sh --model-path)" 200 64 target/largest-shape.json
	@# native llama.cpp (built from PyPI's llama-cpp-python source package) beside the CLI's engine: 1 and 2 threads, ratios
	bash scripts/llama-bench.sh
	ROUNDTABLE_REAL_MODEL="$$(bash scripts/setup.sh --model-path)" cargo test --locked --test real_model -- --test-threads 1 --nocapture
	cargo bench --locked --bench engine_overhead
	cargo bench --locked --bench travel_eval
	cargo bench --locked --bench share_bench
	cargo bench --locked --bench mael_bench
	cargo bench --locked --bench rouge_bench
	cargo bench --locked --bench act_bench
	cargo bench --locked --bench live_bench
	CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=300 cargo test --release --locked --target wasm32-unknown-unknown --test retrieval_wasm -- --nocapture
	CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=300 cargo test --release --locked --target wasm32-unknown-unknown --test rouge_wasm -- --nocapture
	cargo build --locked --release --bin roundtable
	node e2e/share-bench.mjs
	node e2e/bench.mjs
	CARGO_TARGET_DIR=$(CURDIR)/target/llm-worker cargo build --locked --manifest-path crates/llm-worker/Cargo.toml --features fixtures --bin tiny-gguf
	ROUNDTABLE_REAL_MODEL="$$(bash scripts/setup.sh --model-path)" node e2e/local-bench.mjs
	@# the same model with a busy loop pinned to one core: two workers must write at least as fast as one
	ROUNDTABLE_REAL_MODEL="$$(bash scripts/setup.sh --model-path)" node e2e/busy-core-bench.mjs
	node e2e/travel-eval-wasm.mjs
	node e2e/bench-table.mjs
	@# wllama (llama.cpp in wasm) beside the in-page model; llama.cpp's answers must still be the stored reference,
	@# the page must write its text, and the forward pass must follow it token by token (a difference fails the bench):
	@# a bench-only npm package, kept out of package.json (make test never needs it)
	v=3.8.1; [ "$$(node -p "require('./node_modules/@wllama/wllama/package.json').version" 2>/dev/null)" = "$$v" ] \
	  || npm install --no-save --no-audit --no-fund --loglevel=error "@wllama/wllama@$$v"
	ROUNDTABLE_REAL_MODEL="$$(bash scripts/setup.sh --model-path)" node e2e/wllama-bench.mjs
	ROUNDTABLE_REAL_MODEL="$$(bash scripts/setup.sh --model-path)" cargo test --locked --test llama_cpp_reference -- --nocapture

## dev: live-reloading debug build on http://127.0.0.1:$(PORT)
dev: setup
	trunk serve --port $(PORT)

setup:
	bash scripts/setup.sh

setup-browser:
	bash scripts/setup.sh --browser

clean:
	cargo clean
	rm -rf dist e2e/screenshots
