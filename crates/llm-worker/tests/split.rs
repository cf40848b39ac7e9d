//! A forward pass split by rows over several workers (`split`): each part
//! holds its own rows of every matrix and nothing twice, and the split pass
//! gives the whole model's logits to the bit, for every quantisation the
//! worker reads, both architectures, a tied and an untied output, a prompt
//! read as one batch and then token by token from the cache.
//!
//! Natively the peers are threads; the same file runs in wasm with simd128
//! (the browser's kernels), where the peers answer in turn on one thread.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use candle_core::quantized::{gguf_file, GgmlDType};
use llm_worker::model::split::{Op, Part, Peers, Rows};
use llm_worker::model::{Cache, Model};
use llm_worker::tiny::{random_model, scripted_model, Shape};
use std::io::Cursor;
use std::sync::Arc;

fn load(bytes: &[u8], part: Part) -> candle_core::Result<Model> {
    let content = gguf_file::Content::read(&mut Cursor::new(bytes))?;
    let arch = match content.metadata.get("general.architecture") {
        Some(v) => v.to_string()?.clone(),
        None => candle_core::bail!("no architecture"),
    };
    Model::load_part(&content, &mut Cursor::new(bytes), &arch, 256, part)
}

/// Peers on this thread: each answers when collected (wasm has no
/// threads; the arithmetic is the same).
#[cfg(target_arch = "wasm32")]
struct Inline {
    models: Vec<Model>,
    asked: std::cell::RefCell<Option<(Op, usize, Vec<f32>)>>,
}

#[cfg(target_arch = "wasm32")]
impl Peers for Inline {
    fn ask(&self, op: Op, m: usize, input: &[f32]) -> candle_core::Result<()> {
        *self.asked.borrow_mut() = Some((op, m, input.to_vec()));
        Ok(())
    }
    fn collect(&self) -> candle_core::Result<Vec<Rows>> {
        let Some((op, m, input)) = self.asked.borrow_mut().take() else {
            candle_core::bail!("nothing asked")
        };
        self.models.iter().map(|p| p.serve(op, m, &input)).collect()
    }
    fn workers(&self) -> usize {
        self.models.len() + 1
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn peers(bytes: &Arc<Vec<u8>>, count: usize) -> Box<dyn Peers> {
    let file = bytes.clone();
    let threads =
        llm_worker::model::split::ThreadPeers::spawn(count, move |part| load(&file, part));
    Box::new(threads.expect("peers load"))
}

#[cfg(target_arch = "wasm32")]
fn peers(bytes: &Arc<Vec<u8>>, count: usize) -> Box<dyn Peers> {
    let models = (1..count)
        .map(|index| load(bytes, Part { index, count }).expect("peer loads"))
        .collect();
    Box::new(Inline {
        models,
        asked: std::cell::RefCell::new(None),
    })
}

fn split(bytes: &Arc<Vec<u8>>, count: usize) -> Model {
    let mut leader = load(bytes, Part { index: 0, count }).expect("leader loads");
    leader.set_peers(peers(bytes, count)).expect("leads");
    assert_eq!(leader.workers(), count);
    leader
}

/// Whether a split pass must give the whole one's logits to the bit.
/// Quantised products are one dot product per row, whoever computes it,
/// and shares start at multiples of 32 rows, so each row meets the same
/// kernel. Float matrices go through a general matrix product, and on x86
/// Every quantised type runs on our kernels, natively too (`model::weight`:
/// candle's own products repack Q4_K, Q6_K and Q8_0 rows in tiles whose
/// arithmetic depends on the matrix's width, so a split pass was only
/// within a few ulps of the whole one): to the bit.
fn exact(dtype: GgmlDType) -> bool {
    dtype != GgmlDType::F16 && dtype != GgmlDType::F32
}

fn logits(model: &Model, cache: &mut Cache, tokens: &[u32]) -> Vec<f32> {
    model
        .forward(tokens, cache)
        .and_then(|t| t.to_vec1::<f32>())
        .expect("forward")
}

/// Equal to the bit, or within a millionth of the largest logit.
fn same(a: &[f32], b: &[f32], exact: bool) -> Result<(), String> {
    if exact {
        return match a
            .iter()
            .zip(b)
            .position(|(x, y)| x.to_bits() != y.to_bits())
        {
            None if a.len() == b.len() => Ok(()),
            None => Err(format!("{} logits against {}", a.len(), b.len())),
            Some(i) => Err(format!("logit {i}: {} against {}", a[i], b[i])),
        };
    }
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs()));
    let d = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max);
    if d <= scale * 1e-6 && a.len() == b.len() {
        Ok(())
    } else {
        Err(format!("differ by {d} of {scale}"))
    }
}

fn check(bytes: Vec<u8>, what: &str, exact: bool) {
    let bytes = Arc::new(bytes);
    let whole = load(&bytes, Part::WHOLE).expect("loads whole");
    let prompt: Vec<u32> = (0..37u32).map(|i| (i * 7 + 3) % 40).collect();
    for count in [2, 3] {
        let parted = split(&bytes, count);
        let (mut a, mut b) = (Cache::default(), Cache::default());
        let r = same(
            &logits(&parted, &mut b, &prompt),
            &logits(&whole, &mut a, &prompt),
            exact,
        );
        if let Err(e) = r {
            panic!("{what}, {count} workers: the prompt's logits: {e}");
        }
        for t in [5u32, 17, 30] {
            let r = same(
                &logits(&parted, &mut b, &[t]),
                &logits(&whole, &mut a, &[t]),
                exact,
            );
            if let Err(e) = r {
                panic!("{what}, {count} workers: the logits after token {t}: {e}");
            }
        }
        assert_eq!(b.len(), prompt.len() + 3);
    }
}

/// The tiny shape with a vocabulary of whole row tiles: candle picks its
/// product's kernel by the row count (on x86, a repacked one for multiples
/// of 16 rows), and a 73-row output matrix would meet another kernel than
/// its 64-row share. Real vocabularies are multiples of 64.
fn tiny(arch: &'static str) -> Shape {
    Shape {
        vocab: 128,
        ..Shape::tiny(arch)
    }
}

#[test]
fn a_split_pass_gives_the_whole_models_logits() {
    for arch in ["llama", "qwen2"] {
        for dtype in [
            GgmlDType::Q8_0,
            GgmlDType::Q4_0,
            GgmlDType::Q4_1,
            GgmlDType::Q5_0,
            GgmlDType::Q5_1,
            GgmlDType::F16,
        ] {
            let bytes = random_model(&tiny(arch), dtype, 5).expect("writes");
            check(bytes, &format!("{arch} {dtype:?}"), exact(dtype));
        }
        let wide = Shape {
            hidden: 256,
            ffn: 512,
            ..tiny(arch)
        };
        for dtype in [
            GgmlDType::Q3K,
            GgmlDType::Q4K,
            GgmlDType::Q5K,
            GgmlDType::Q6K,
        ] {
            let bytes = random_model(&wide, dtype, 5).expect("writes");
            check(bytes, &format!("{arch} {dtype:?}"), exact(dtype));
        }
    }
}

#[test]
fn an_untied_output_matrix_is_split_too() {
    // The scripted model has its own output.weight (floats).
    let bytes = scripted_model("Split", "Hello from the tiny model.").expect("writes");
    check(bytes, "scripted llama", false);
}

#[test]
fn every_row_is_held_once() {
    let shape = Shape {
        hidden: 256,
        ffn: 512,
        ..Shape::tiny("llama")
    };
    for dtype in [GgmlDType::Q4_1, GgmlDType::Q4K, GgmlDType::Q8_0] {
        let bytes = random_model(&shape, dtype, 9).expect("writes");
        let whole = load(&bytes, Part::WHOLE).expect("loads").matrix_bytes();
        for count in [2, 3] {
            let parts: Vec<usize> = (0..count)
                .map(|index| {
                    load(&bytes, Part { index, count })
                        .expect("loads")
                        .matrix_bytes()
                })
                .collect();
            assert_eq!(parts.iter().sum::<usize>(), whole, "{dtype:?} in {count}");
            // Shares are even up to the rows they are aligned to.
            let even = parts.iter().all(|p| p.abs_diff(whole / count) * 4 < whole);
            assert!(even, "{dtype:?}: {parts:?} of {whole}");
        }
    }
}

#[test]
fn parts_cover_the_rows_once() {
    for n in [1usize, 2, 3, 7, 64, 49152] {
        for count in 1..=4 {
            let mut next = 0;
            for index in 0..count {
                let r = Part { index, count }.rows(n);
                assert_eq!(r.start, next, "{n} rows in {count}");
                next = r.end;
            }
            assert_eq!(next, n);
        }
    }
    for op in [
        Op::Qkv(0),
        Op::O(3),
        Op::GateUp(29),
        Op::Down(7),
        Op::Output,
    ] {
        let (kind, layer) = op.code();
        assert_eq!(Op::from_code(kind, layer), Some(op));
    }
    assert_eq!(Op::from_code(9, 0), None);
}

/// A peer that sends back one row too few: the leader says so, it does
/// not join misshapen rows.
struct Short(Box<dyn Peers>);

impl Peers for Short {
    fn ask(&self, op: Op, m: usize, input: &[f32]) -> candle_core::Result<()> {
        self.0.ask(op, m, input)
    }
    fn collect(&self) -> candle_core::Result<Vec<Rows>> {
        let mut rows = self.0.collect()?;
        if let Some(v) = rows.first_mut().and_then(|r| r.first_mut()) {
            v.pop();
        }
        Ok(rows)
    }
    fn workers(&self) -> usize {
        self.0.workers()
    }
}

#[test]
fn a_peers_wrong_answer_is_an_error() {
    let bytes = Arc::new(random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 3).expect("writes"));
    let mut leader = load(&bytes, Part { index: 0, count: 2 }).expect("loads");
    leader
        .set_peers(Box::new(Short(peers(&bytes, 2))))
        .expect("leads");
    let err = leader
        .forward(&[1, 2, 3], &mut Cache::default())
        .expect_err("a short answer is refused");
    assert!(err.to_string().contains("values for 3 tokens"), "{err}");
    // A peer's part runs no pass of its own, and leads no one.
    let mut peer = load(&bytes, Part { index: 1, count: 2 }).expect("loads");
    assert!(peer.forward(&[1], &mut Cache::default()).is_err());
    assert!(peer.set_peers(peers(&bytes, 2)).is_err());
}
