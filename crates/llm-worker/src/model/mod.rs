//! The transformer itself (llama and qwen2 layouts), on candle tensors:
//! weights of the types `quant::packed::has_kernels` names are
//! `quant::packed` ones, multiplied by our kernels (`weight`), the others
//! candle's own `QTensor`s. The
//! weights are shared; each conversation's keys and values live in a
//! `Cache` of its own.
//!
//! A forward pass runs layer by layer (`begin`, `layer`, `finish`), so the
//! engine can read a whole prompt as one batch and still report progress
//! and take a cancel between layers.
//!
//! A model may hold only a share of every matrix's rows (`split::Part`):
//! the leader then runs each product with its `Peers`, which hold the
//! other shares and answer through `serve`. `tensors` reads the weights
//! (a share of each matrix's rows, or all of them) from the file.

pub mod attention;
pub mod mathf;
pub mod quant;
pub mod split;

mod arith;
mod tensors;
mod weight;

use crate::gguf::inspect::Meta;
use crate::model::attention::{attend, Kv};
use crate::model::split::{Op, Part, Peers, Rows, Serve};
use arith::{rms_norm, swiglu, Rope};
use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::QTensor;
use candle_core::{DType, Device, Result, Tensor};
use std::io::{Read, Seek};
use std::sync::Arc;
use tensors::{load_rows, load_tensor, load_weight};
use weight::Weight;

struct Layer {
    attn_norm: Vec<f32>,
    q: Weight,
    k: Weight,
    v: Weight,
    o: Weight,
    /// qwen2's attention biases.
    bias: Option<[Tensor; 3]>,
    ffn_norm: Vec<f32>,
    gate: Weight,
    up: Weight,
    down: Weight,
}

pub struct Model {
    /// The token embeddings as stored (the leader's; a peer has none),
    /// each token's row unpacked as it comes: a float copy of the whole
    /// table was most of a small model's memory.
    embed: Option<Arc<QTensor>>,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    output: Weight,
    eps: f32,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    /// Rotary tables, one row per position (`max_context`).
    rope: Rope,
    /// The share of each matrix's rows held here.
    part: Part,
    /// The workers holding the other shares (the leader's).
    peers: Option<Box<dyn Peers>>,
}

/// One conversation's keys and values, per layer (`attention::Kv`).
#[derive(Default)]
pub struct Cache {
    kv: Vec<Kv>,
}

impl Cache {
    /// Positions held.
    pub fn len(&self) -> usize {
        self.kv.first().map_or(0, Kv::len)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn clear(&mut self) {
        self.kv.clear();
    }
}

/// A forward pass in progress: the hidden states of the tokens fed.
pub struct Pass {
    x: Tensor,
    pos: usize,
    seq: usize,
    layer: usize,
}

impl Pass {
    pub fn layers_done(&self) -> usize {
        self.layer
    }
    /// The position after the pass's last token.
    pub fn end(&self) -> usize {
        self.pos + self.seq
    }

    /// Moves every hidden value one ulp away from zero: a change the size
    /// of one rounding. Tests measure with it how far rounding alone moves
    /// the model's output (`tests/llama_cpp_reference.rs`).
    pub fn nudge(&mut self) -> Result<()> {
        let dims = self.x.dims().to_vec();
        let xs: Vec<f32> = self
            .x
            .flatten_all()?
            .to_vec1::<f32>()?
            .into_iter()
            .map(|x| {
                if x == 0.0 {
                    x
                } else {
                    f32::from_bits(x.to_bits() + 1)
                }
            })
            .collect();
        self.x = Tensor::from_vec(xs, dims, &Device::Cpu)?;
        Ok(())
    }
}

/// `swiglu` of `seq` tokens' rows; natively a batch's rows are shared
/// out over the product threads (each row the same whichever computes it).
fn swiglu_rows(gate: &[f32], up: &[f32], seq: usize) -> Vec<f32> {
    #[cfg(not(target_arch = "wasm32"))]
    if seq >= 16 {
        let f = gate.len() / seq;
        let row = |i: usize| swiglu(&gate[i * f..(i + 1) * f], &up[i * f..(i + 1) * f]);
        return quant::native::map_split(seq, true, row).concat();
    }
    let _ = seq;
    swiglu(gate, up)
}

/// The width of a product's input: the down projection's columns.
fn ff_len(w: &Weight) -> usize {
    w.dims().1
}

fn floats(t: QTensor) -> Result<Tensor> {
    t.dequantize(&Device::Cpu)
}

impl Model {
    /// Reads a GGUF file's header, then its whole model (tests and tools;
    /// the engine reads the header once for its checks and calls `load`).
    pub fn read<R: Read + Seek>(reader: &mut R, max_context: usize) -> Result<Model> {
        let content = Content::read(reader)?;
        let arch = match content.metadata.get("general.architecture") {
            Some(v) => v.to_string()?.clone(),
            None => candle_core::bail!("the file names no architecture"),
        };
        Self::load(&content, reader, &arch, max_context)
    }

    pub fn load<R: Read + Seek>(
        content: &Content,
        reader: &mut R,
        arch: &str,
        max_context: usize,
    ) -> Result<Model> {
        Self::load_part(content, reader, arch, max_context, Part::WHOLE)
    }

    /// Loads `part`'s rows of every matrix. Part 0 (the leader) also holds
    /// everything else: embeddings, norms, biases, rotary tables.
    pub fn load_part<R: Read + Seek>(
        content: &Content,
        reader: &mut R,
        arch: &str,
        max_context: usize,
        part: Part,
    ) -> Result<Model> {
        if part.count == 0 || part.index >= part.count {
            candle_core::bail!("part {} of {} does not exist", part.index, part.count)
        }
        let leader = part.index == 0;
        let meta = Meta(&content.metadata);
        let key = |k: &str| format!("{arch}.{k}");
        let need = |k: &str| {
            meta.u32(&key(k))
                .map(|v| v as usize)
                .ok_or_else(|| candle_core::Error::Msg(format!("the file has no {}", key(k))))
        };
        let f32_of = |k: &str| meta.get(&key(k)).and_then(|v| v.to_f32().ok());
        let heads = need("attention.head_count")?;
        let kv_heads = meta
            .u32(&key("attention.head_count_kv"))
            .map(|v| v as usize)
            .unwrap_or(heads);
        let hidden = need("embedding_length")?;
        let blocks = need("block_count")?;
        if heads == 0 || kv_heads == 0 || hidden % heads != 0 || heads % kv_heads != 0 {
            candle_core::bail!("{heads} attention heads ({kv_heads} for keys and values) do not divide a width of {hidden}")
        }
        let head_dim = hidden / heads;
        let rope_dim = meta
            .u32(&key("rope.dimension_count"))
            .map(|v| v as usize)
            .unwrap_or(head_dim);
        if rope_dim != head_dim {
            candle_core::bail!(
                "rotary embeddings over {rope_dim} of each head's {head_dim} values are not supported"
            )
        }
        let eps = f32_of("attention.layer_norm_rms_epsilon").unwrap_or(1e-5);
        let base = f32_of("rope.freq_base").unwrap_or(10_000.0);
        let rope = Rope::new(
            rope_dim,
            base,
            if leader { max_context } else { 1 },
            arch == "qwen2",
        );

        let tied = !content.tensor_infos.contains_key("output.weight");
        let embed_q = leader
            .then(|| load_rows(content, reader, "token_embd.weight", Part::WHOLE))
            .transpose()?
            .map(|(t, ours)| (Arc::new(t), ours));
        let output = match (&embed_q, tied) {
            (Some((q, ours)), true) if part.is_whole() => Weight::shared(q, ours.clone())?,
            (_, true) => load_weight(content, reader, "token_embd.weight", part)?,
            (_, false) => load_weight(content, reader, "output.weight", part)?,
        };
        let embed_q = embed_q.map(|(q, _)| q);
        let norm = floats(load_tensor(content, reader, "output_norm.weight")?)?;
        let norm = norm.flatten_all()?.to_vec1::<f32>()?;
        let mut layers = Vec::with_capacity(blocks);
        for i in 0..blocks {
            let mut t = |n: &str| load_tensor(content, reader, &format!("blk.{i}.{n}"));
            let mm = |n: &str, reader: &mut R| {
                load_weight(content, reader, &format!("blk.{i}.{n}"), part)
            };
            let bias = if arch == "qwen2" {
                Some([
                    floats(t("attn_q.bias")?)?,
                    floats(t("attn_k.bias")?)?,
                    floats(t("attn_v.bias")?)?,
                ])
            } else {
                None
            };
            let attn_norm = floats(t("attn_norm.weight")?)?.to_vec1::<f32>()?;
            let ffn_norm = floats(t("ffn_norm.weight")?)?.to_vec1::<f32>()?;
            layers.push(Layer {
                attn_norm,
                q: mm("attn_q.weight", reader)?,
                k: mm("attn_k.weight", reader)?,
                v: mm("attn_v.weight", reader)?,
                o: mm("attn_output.weight", reader)?,
                bias,
                ffn_norm,
                gate: mm("ffn_gate.weight", reader)?,
                up: mm("ffn_up.weight", reader)?,
                down: mm("ffn_down.weight", reader)?,
            });
        }
        Ok(Model {
            embed: embed_q,
            layers,
            norm,
            output,
            eps,
            heads,
            kv_heads,
            head_dim,
            rope,
            part,
            peers: None,
        })
    }

    /// Splits every product with `peers`, which hold the other parts.
    pub fn set_peers(&mut self, peers: Box<dyn Peers>) -> Result<()> {
        if self.part.index != 0 || self.part.count != peers.workers() {
            candle_core::bail!(
                "part {} of {} cannot lead {} workers",
                self.part.index,
                self.part.count,
                peers.workers()
            )
        }
        self.peers = Some(peers);
        Ok(())
    }

    /// Bytes of this part's matrices as stored (the embedding table and
    /// the norms aside).
    pub fn matrix_bytes(&self) -> usize {
        let size = |w: &Weight| w.bytes();
        let layers: usize = self
            .layers
            .iter()
            .map(|l| {
                [&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down]
                    .map(size)
                    .iter()
                    .sum::<usize>()
            })
            .sum();
        layers + size(&self.output)
    }

    /// The peers' products exchanged and the time spent on it (`Peers::exchanged`).
    pub fn exchanged(&self) -> (u64, f64) {
        self.peers.as_ref().map_or((0, 0.0), |p| p.exchanged())
    }

    /// Where a split pass's time went (none on one worker).
    pub fn shares(&self) -> Option<split::Shares> {
        self.peers.as_ref().map(|p| p.shares())
    }

    /// Whether a peer stopped answering.
    pub fn peers_broken(&self) -> bool {
        self.peers.as_ref().is_some_and(|p| p.broken())
    }

    /// Workers a forward pass runs on.
    pub fn workers(&self) -> usize {
        self.peers.as_ref().map_or(1, |p| p.workers())
    }

    /// The widest input and output of any product for `m` tokens, in
    /// floats (what a peer's exchange buffer must hold).
    pub fn exchange_floats(&self, m: usize) -> (usize, usize) {
        let hidden = self.heads * self.head_dim;
        let Some(l) = self.layers.first() else {
            return (0, 0);
        };
        let cols = |w: &Weight| w.dims().1;
        // Rows here are this part's; a peer's share is at most one
        // alignment step more.
        let share = |w: &Weight| w.dims().0 + split::ALIGN;
        let input = m * hidden.max(cols(&l.down)).max(cols(&l.o));
        let output = (m * (share(&l.q) + share(&l.k) + share(&l.v)))
            .max(m * share(&l.o))
            .max(m * (share(&l.gate) + share(&l.up)))
            .max(m * share(&l.down))
            .max(share(&self.output));
        (input, output)
    }

    /// The matrices of one product, in the order they are joined.
    fn matrices(&self, op: Op) -> Result<Vec<&Weight>> {
        let layer = |i: usize| {
            self.layers
                .get(i)
                .ok_or_else(|| candle_core::Error::Msg(format!("there is no layer {i}")))
        };
        Ok(match op {
            Op::Qkv(i) => {
                let l = layer(i)?;
                vec![&l.q, &l.k, &l.v]
            }
            Op::O(i) => vec![&layer(i)?.o],
            Op::GateUp(i) => {
                let l = layer(i)?;
                vec![&l.gate, &l.up]
            }
            Op::Down(i) => vec![&layer(i)?.down],
            Op::Output => vec![&self.output],
        })
    }

    /// A peer's side of a product: this part's rows of each matrix for `m`
    /// tokens of `input`.
    pub fn serve(&self, op: Op, m: usize, input: &[f32]) -> Result<Rows> {
        if m == 0 || input.len() % m != 0 {
            candle_core::bail!("{} input values are not {m} whole tokens", input.len())
        }
        let x = Tensor::from_slice(input, (1, m, input.len() / m), &Device::Cpu)?;
        self.matrices(op)?
            .into_iter()
            .map(|w| w.apply(&x)?.flatten_all()?.to_vec1())
            .collect()
    }

    /// Every matrix of `op` applied to `x` (1, m, k), all rows: the peers'
    /// shares are computed while this worker computes its own.
    fn products(&self, op: Op, x: &Tensor) -> Result<Vec<Tensor>> {
        let mats = self.matrices(op)?;
        let Some(peers) = &self.peers else {
            return mats.into_iter().map(|w| w.apply(x)).collect();
        };
        let (_, m, _) = x.dims3()?;
        let input: Vec<f32> = x.flatten_all()?.to_vec1()?;
        peers.ask(op, m, &input)?;
        let local = mats
            .into_iter()
            .map(|w| w.apply(x))
            .collect::<Result<Vec<_>>>();
        // Collected even when the local product failed: the exchange
        // stays in step.
        let remote = peers.collect()?;
        local?
            .into_iter()
            .enumerate()
            .map(|(i, own)| {
                let mut parts = vec![own];
                for rows in &remote {
                    let Some(v) = rows.get(i) else {
                        candle_core::bail!("a peer sent {} of the matrices of {op:?}", rows.len())
                    };
                    if v.len() % m != 0 {
                        candle_core::bail!("a peer sent {} values for {m} tokens", v.len())
                    }
                    parts.push(Tensor::from_slice(v, (1, m, v.len() / m), &Device::Cpu)?);
                }
                Tensor::cat(&parts, 2)
            })
            .collect()
    }

    pub fn layers(&self) -> usize {
        self.layers.len()
    }

    /// Starts a pass over `tokens`, which follow the cache's positions.
    pub fn begin(&self, tokens: &[u32], cache: &Cache) -> Result<Pass> {
        let seq = tokens.len();
        if seq == 0 {
            candle_core::bail!("a forward pass needs at least one token")
        }
        let pos = cache.len();
        if pos + seq > self.rope.len() {
            candle_core::bail!(
                "{} positions exceed the context of {}",
                pos + seq,
                self.rope.len()
            )
        }
        let Some(embed) = &self.embed else {
            candle_core::bail!("part {} of the model does not run passes", self.part.index)
        };
        let ids = Tensor::new(tokens, &Device::Cpu)?;
        let x = embed.embedding(&ids)?.unsqueeze(0)?;
        Ok(Pass {
            x,
            pos,
            seq,
            layer: 0,
        })
    }

    /// A product of one matrix (`products`).
    fn product(&self, op: Op, x: &Tensor) -> Result<Tensor> {
        match self.products(op, x)?.pop() {
            Some(t) => Ok(t),
            None => candle_core::bail!("{op:?} has no matrix"),
        }
    }

    /// RMS norm of each token's row of `x` (1, seq, hidden), times `w`.
    fn norm(&self, x: &Tensor, w: &[f32]) -> Result<Tensor> {
        let dims = x.dims().to_vec();
        let n = rms_norm(&x.flatten_all()?.to_vec1::<f32>()?, w, self.eps);
        Tensor::from_vec(n, dims, &Device::Cpu)
    }

    /// Rotates each of the `heads` heads of each token of `x` (seq,
    /// heads, head_dim), the first token at position `pos`.
    fn rotate(&self, x: &mut [f32], heads: usize, pos: usize) {
        for (r, head) in x.chunks_exact_mut(self.head_dim).enumerate() {
            self.rope.rotate(head, pos + r / heads);
        }
    }

    /// Runs the pass's next layer, extending the cache.
    pub fn layer(&self, pass: &mut Pass, cache: &mut Cache) -> Result<()> {
        let Some(l) = self.layers.get(pass.layer) else {
            candle_core::bail!("the pass has run every layer")
        };
        let (seq, pos, hd) = (pass.seq, pass.pos, self.head_dim);
        let (h, kvh) = (self.heads, self.kv_heads);
        let x = &pass.x;
        let n = self.norm(x, &l.attn_norm)?;
        let [mut q, mut k, mut v]: [Tensor; 3] = self
            .products(Op::Qkv(pass.layer), &n)?
            .try_into()
            .map_err(|_| candle_core::Error::Msg("query, key and value expected".into()))?;
        if let Some([bq, bk, bv]) = &l.bias {
            q = q.broadcast_add(bq)?;
            k = k.broadcast_add(bk)?;
            v = v.broadcast_add(bv)?;
        }
        let rows = |t: Tensor| t.flatten_all()?.to_vec1::<f32>();
        let (mut q, mut k, v) = (rows(q)?, rows(k)?, rows(v)?);
        self.rotate(&mut q, h, pos);
        self.rotate(&mut k, kvh, pos);
        if cache.kv.len() < self.layers.len() {
            cache.kv.resize_with(self.layers.len(), Kv::default);
        }
        let kv = &mut cache.kv[pass.layer];
        kv.append(kvh, hd, seq, &k, &v);
        let mut att = vec![0f32; seq * h * hd];
        attend(&q, h, seq, kv, &mut att);
        let att = Tensor::from_vec(att, (1, seq, h * hd), &Device::Cpu)?;
        let x = (self.product(Op::O(pass.layer), &att)? + x)?;
        let n = self.norm(&x, &l.ffn_norm)?;
        let [gate, up]: [Tensor; 2] = self
            .products(Op::GateUp(pass.layer), &n)?
            .try_into()
            .map_err(|_| candle_core::Error::Msg("gate and up expected".into()))?;
        let ff = swiglu_rows(&rows(gate)?, &rows(up)?, seq);
        let ff = Tensor::from_vec(ff, (1, seq, ff_len(&l.down)), &Device::Cpu)?;
        pass.x = (self.product(Op::Down(pass.layer), &ff)? + x)?;
        pass.layer += 1;
        Ok(())
    }

    /// The next token's logits (vocabulary-long) after the pass's last token.
    pub fn finish(&self, pass: Pass) -> Result<Tensor> {
        if pass.layer != self.layers.len() {
            candle_core::bail!(
                "the pass has run {} of {} layers",
                pass.layer,
                self.layers.len()
            )
        }
        let x = pass.x.narrow(1, pass.seq - 1, 1)?;
        let x = self.norm(&x, &self.norm)?;
        self.product(Op::Output, &x)?
            .flatten_all()?
            .to_dtype(DType::F32)
    }

    /// A whole forward pass.
    pub fn forward(&self, tokens: &[u32], cache: &mut Cache) -> Result<Tensor> {
        let mut pass = self.begin(tokens, cache)?;
        while pass.layer < self.layers.len() {
            self.layer(&mut pass, cache)?;
        }
        self.finish(pass)
    }
}

impl Serve for Model {
    fn serve(&self, op: Op, m: usize, input: &[f32]) -> Result<Rows> {
        Model::serve(self, op, m, input)
    }
}
