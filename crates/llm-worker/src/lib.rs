//! Roundtable's in-browser model: GGUF files run in a Web Worker of their
//! own. Four layers, each importing only those below it (the table in
//! ARCHITECTURE.md, checked by the app's `tests/layers.rs`):
//!
//! - `protocol`: the messages between the page and the worker, and the
//!   values they carry (the app compiles this same file);
//! - `gguf`: reading a model file: its header (`inspect`), tokenizer, chat
//!   template and digest;
//! - `model`: computing: the transformer, its attention, the quantised
//!   kernels, the maths functions and the split over several workers;
//! - `generate`: writing an answer one step at a time: the engine, its
//!   sampler and loop check;
//! - `host` (wasm32 only): the worker itself: its message loop, the model
//!   store, the helper workers.
//!
//! The generated test models (`tiny`) are behind the `fixtures` feature.
//!
//! # How it runs in the page
//!
//! "Local model (in this browser)" runs a GGUF file the user brings with
//! candle 0.11 (`crates/llm-worker`), as `../shared/LOCAL_LLM.md` proposed:
//!
//! - **Its own wasm, in a Web Worker.** `scripts/build-wasm.sh` builds the
//!   crate after the app (release, opt-level 3, `+simd128` for the
//!   quantised dot kernels, candle's and ours; none of the app's rustflags; no wasm-opt: the same
//!   size gzipped for ten minutes of build) into `dist/llm-worker/`, with a
//!   loader `worker.js` that instantiates it and calls `start`. It is built
//!   twice: `simd128` for every browser, and `+relaxed-simd` too into
//!   `dist/llm-worker/relaxed/` (its own target dir, `target/llm-worker-relaxed`)
//!   for browsers whose relaxed-SIMD dots sum right (Chromium 114+):
//!   `worker.js` imports `simd-probe.mjs` (from `web/llm-worker/`), which
//!   runs both relaxed dots the kernels use on known sums, not only
//!   validates them (Node 20's V8 validates them and, on CPUs with AVX-VNNI,
//!   returns twice the sum from the one with an accumulator), and imports one
//!   build; `?simd=simd128` forces the first (the bench times both; helper
//!   workers load the same URL). `e2e/simd-probe.test.mjs` checks the probe's
//!   verdicts with stand-in engines, and `e2e/local-cores.spec.mjs` that
//!   Chromium gets the relaxed build and that a probe expecting other sums
//!   sends it to the simd128 one. The relaxed build's byte dots
//!   (`i16x8_relaxed_dot_i8x16_i7x16`, x86's `pmaddubsw`) take the weights
//!   unsigned and below 128, where every platform gives the same value, so
//!   both builds compute the same integer sums and float operations: the
//!   same results to the bit (`e2e/local-cores.spec.mjs` checks the greedy
//!   text of six quantisations; `quant::BUILD` is reported in `ModelInfo.simd`). The page starts
//!   the worker when the provider's Settings or its first call need it
//!   (`platform::local_model`, in the `extras` chunk): the start page fetches
//!   none of it (`e2e/local-model.spec.mjs` checks, `make bench` prints it).
//!   Inference never runs on the page's thread.
//! - **Protocol.** The page posts `{msg: <ToWorker JSON>, file?: File}`; the
//!   worker answers with `FromWorker` JSON (`protocol`, compiled by both
//!   sides: the app mounts it as `engine::model::worker_protocol`, natively the
//!   worker crate's own module; the sampler settings Settings keeps and a run
//!   records, `LocalSampling` inside `Sampling`, are declared there once). Requests run one at a time in order; `Cancel` is handled as it
//!   arrives. Generation is a loop of steps (one layer of a prompt batch,
//!   or one token) with a yield to the event loop (a MessageChannel round
//!   trip, not a clamped timer) after each: Stop lands before the next token,
//!   and the page sees prefill progress. `Generate` names its model's hash
//!   and loads it if another is loaded (Settings may have loaded another
//!   meanwhile). If the worker dies (out of memory) or does not start (its
//!   script cannot be fetched; no `ready` within two minutes), every waiting
//!   request gets a message saying so and the next request starts a fresh
//!   worker; a message the worker cannot read is answered by its id.
//! - **Storage** (`host::store`). OPFS directory `roundtable-models`:
//!   `<id>.gguf` and, written last, `<id>.json` (`StoredModel`: header
//!   facts, SHA-256, file name). The picked `File` is checked first (its
//!   header, read in slices through `FileReaderSync`), then copied in 4 MB
//!   chunks through a sync access handle while hashing, with progress; the
//!   copy holds a Web Lock on its id until its record is written
//!   (`host::locks`). Nothing removes a file but the user's Delete and a
//!   copy's own failure: listing changes nothing, and a file without a
//!   readable record whose lock is free is a `Leftover` the user deletes or
//!   checks and keeps again. Loading reads the file through a sync access
//!   handle (the header and each tensor's range; no second copy in memory).
//!   Where a browser has no OPFS sync access handles, the file goes to
//!   IndexedDB instead (`host::store_idb`, database `roundtable-models`,
//!   not the app's: `{record, blob}` in one transaction, read back in
//!   slices); listing, loading and deleting look in both.
//! - **Prompts.** The file's chat template (minijinja, with `raise_exception`),
//!   ChatML if it has none or it fails on a probe conversation. Tool results
//!   become user turns: the travel experts run with the text tool protocol
//!   (`ToolMode::for_model`).
//! - **The forward pass is the worker's own** (`model/`: llama and qwen2
//!   layouts on candle tensors; candle-transformers is only the reference
//!   `tests/model_parity.rs` checks it against). It rounds as llama.cpp's
//!   wasm build (wllama 3.8.1, llama.cpp b11364) does, operation for
//!   operation, so that it writes llama.cpp's greedy text
//!   (`tests/llama_cpp_reference.rs`): `model/arith.rs` has the RMS norm (squares
//!   summed in double), rotary angles as a running product and SwiGLU;
//!   `model::mathf` musl's `expf` (Rust's, in wasm, is an older one) and its
//!   `sinf`/`cosf`; `model::attention` llama.cpp's flash attention, keys and
//!   values in f16 as it hands them over, with its three paths (key by key
//!   with f16 sums; 64-key tiles for batches of 64 or more; two halves
//!   merged past 256 positions, as its two threads split them) chosen per
//!   512-token batch as it chooses; `model::quant` Q8_0's product in
//!   ggml's generic order (per block `sumi * (d * yd)`). Activations are
//!   quantised with rounding, as that build's generic kernels do. Float
//!   weights (unpacked) are
//!   candle's `QTensor`s; Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K are
//!   `quant::packed::Packed` ones (`packed::has_kernels` decides, natively
//!   as in wasm), our implementation of candle's `QuantizedType`; a model
//!   multiplies with them directly (`model::weight`: natively candle's
//!   `QMatMul::forward` hands Q4_K, Q6_K and, with VNNI, Q8_0 to its own
//!   repacked kernels first), so the products run our kernels (`model::quant`, whose
//!   module doc says where each type lives): ggml's block layouts, a scalar
//!   reference and a `simd128` kernel each, in ggml's and candle's
//!   `vec_dot_*` shape so they could move upstream, with
//!   `cfg(target_feature = "relaxed-simd")` variants of the integer dots;
//!   `tests/kernels_legacy.rs` and `tests/kernels_k.rs` check SIMD = scalar
//!   (the legacy types to the bit) on random and edge blocks in wasm (both
//!   builds: the simd128 one in Node, the relaxed one in headless
//!   Chromium), and scalar = candle's bytes and products natively, with
//!   generators and layout references in `tests/support/`;
//!   `tests/kernels_speed.rs` times them. A product quantises the batch's
//!   activations once and reads each weight row once for all of them; from
//!   a few tokens on, it first unpacks the row's blocks to bytes (unpacking
//!   3-, 5- and 6-bit values costs more than multiplying them) and takes
//!   plain 8-bit products with every token, to the bit the scalar kernel's
//!   values; the 32-value types take four tokens at once (the row loaded
//!   once, the four sums scaled in one vector's lanes, each lane the scalar
//!   formula), which `tests/kernels_batch.rs` checks bit for bit in both
//!   builds. Natively (the CLI, the benches) `quant::native` splits each
//!   product's rows over `--threads` threads (the caller and a rayon pool)
//!   and, on x86-64 with AVX2 and F16C, multiplies a token or two with the
//!   packed rows of Q4_0, Q4_1, Q8_0, Q4_K, Q5_K and Q6_K (`legacy/avx2.rs`,
//!   `kquants/avx2.rs`), and batches (and the other types) with unpacked
//!   rows on AVX2 (the same files), chosen at run time; `tests/kernels_native.rs` checks every type, split
//!   and not, against the scalar kernel to the bit. The weights stay as
//!   the file stores them, and the embedding table too (a token's row is
//!   unpacked as it comes).
//! - **Attention** (`model::attention`): each layer's keys and values live in
//!   buffers of f16 bits written in place (`attention::Kv`, grown by a
//!   quarter; widened to f32 a block of keys at a time, exactly), and
//!   llama.cpp's flash attention runs head by head over them, on the path
//!   llama.cpp would take (above). `tests/attention.rs` checks each path
//!   against the formula in f64 over the same f16 keys and values, natively
//!   and in wasm, and that a batch of 64 takes the f32 path;
//!   `tests/llama_cpp_reference.rs` checks the rounding against llama.cpp.
//! - **Every core** (`model::split`, `host::peers`): on a cross-origin
//!   isolated page (COOP `same-origin`, COEP `require-corp`; `make run`'s
//!   server sends both) the worker the page started leads up to three helper
//!   workers of the same script (one per core, 4 workers at most). Every
//!   matrix is split by rows (`split::Part`, shares starting at multiples of
//!   32 rows so each row meets the kernel it would in the whole matrix); each
//!   worker reads only its rows from the stored file (one after the other: a
//!   sync access handle is exclusive), so no weight is held twice. At each
//!   product (query/key/value, attention output, gate/up, down, the
//!   vocabulary's logits) the leader writes the input into a
//!   SharedArrayBuffer per helper and wakes it (`Atomics.notify`), multiplies
//!   its own rows, then waits (`Atomics.wait`, after a short spin) for the
//!   helpers' rows and joins them; everything else (norms, rotary, attention,
//!   the caches, sampling) stays with the leader, so the helpers keep no
//!   state but their rows. Wasm threads would need a rebuilt standard
//!   library; this needs none. A split pass gives the whole model's logits to
//!   the bit with the browser's kernels (`tests/split.rs`, in wasm; natively
//!   with threads as peers). `Done` reports the products exchanged while
//!   writing and the time spent on them. Where the page is not isolated, or
//!   a helper fails to load, the model runs on one worker.
//! - **Prefill as a batch.** The prompt is read in batches of up to 512
//!   tokens, one layer per engine step (`Model::begin` / `layer` / `finish`):
//!   each weight is read once per batch, and progress and Stop still land
//!   between layers. A job dropped mid-pass (a cancel) leaves its slot marked
//!   open, and the next request resets it.
//! - **Prefix cache.** The weights are shared; each of up to four slots (as
//!   many full contexts as the memory budget holds) holds one conversation's
//!   keys and values (`model::Cache`) and its tokens; a prompt that extends
//!   one (an agent's next turn) reads only the rest. Where a cache's text
//!   begins the prompt, its tokens are kept as written (a model's tokens are
//!   not always those the tokenizer would make of its text). Both
//!   architectures get every slot.
//! - **Sampling** (`generate::sampler`): llama.cpp's chain in its order — repetition
//!   penalty over the context's last tokens, top-k, top-p, min-p, temperature,
//!   a draw from a seeded SplitMix64 (greedy argmax at temperature 0) — with
//!   its defaults for what a request leaves unset (`GenParams`). **Loops**
//!   (`generate::repeat`): after each token the engine checks whether the answer ends
//!   with one block (≤ 256 tokens) three times in a row spanning ≥ 24 tokens,
//!   and then finishes with `repeat`, the text kept. The finish reason reaches
//!   `ChatResponse.finish_reason`; the transcript marks `length`/`max_tokens`
//!   ("cut off at N tokens") and `repeat` on the reply.
//! - **Runs** record `ModelSpec { provider: "local", model: <name quant>,
//!   file_sha256, sampling }` (sampling only when Settings or the CLI set any); usage is counted, not estimated; replay and links need no
//!   model. The CLI refuses the provider with a message (it runs in a tab only).

pub mod generate;
pub mod gguf;
pub mod model;
pub mod protocol;

#[cfg(feature = "fixtures")]
pub mod tiny;

#[cfg(target_arch = "wasm32")]
pub mod host;
