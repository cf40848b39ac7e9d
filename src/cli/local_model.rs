//! The local model on the command line (`--provider local --model-file
//! F.gguf`): the GGUF file runs in this process on the same engine as the
//! page's worker (`crates/llm-worker`), built natively. The engine lives on
//! a thread of its own and answers one request at a time, as the page's
//! worker does (a call waits its turn: its recorded latency includes the
//! wait). Its weights stay as the file stores them (a SmolLM2-135M run
//! in about 140 MB); each matrix product is split over `--threads`
//! threads (default: every core) and runs the page's kernels compiled for
//! AVX2 where the CPU has it (`quant::native`). A cancelled call stops
//! before the model's next token or prompt chunk.

use llm_worker::generate::{Engine, Step};
use llm_worker::gguf::inspect::{inspect, MEMORY_BUDGET};
use llm_worker::protocol::{ChatTurn, GenParams, ModelInfo};
use roundtable::engine::model::local::{gen_params, turns};
use roundtable::engine::model::spec::{LocalSampling, Sampling, LOCAL_PROVIDER};
use roundtable::engine::model::{
    Call, ChatModel, ChatResponse, Completion, ModelError, StreamDelta, Usage,
};
use roundtable::engine::run::ModelSpec;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

enum Msg {
    Delta(String),
    Done {
        prompt: u64,
        output: u64,
        finish: &'static str,
        held: bool,
    },
    Cancelled,
    Failed(String),
}

struct Job {
    turns: Vec<ChatTurn>,
    params: GenParams,
    cancel: Arc<AtomicBool>,
    out: futures::channel::mpsc::UnboundedSender<Msg>,
}

/// A GGUF model loaded on its own thread. Clones share the thread; each
/// answers with its own sampler settings (a run's spec's).
#[derive(Clone)]
pub struct NativeLocal {
    info: ModelInfo,
    /// Its display name (the file's name without `.gguf`).
    name: String,
    jobs: mpsc::Sender<Job>,
    /// Sampler settings beyond the temperature (none: llama.cpp's defaults).
    sampling: LocalSampling,
}

impl NativeLocal {
    /// Checks, hashes and loads `path`; errors say what to do.
    pub fn open(path: &Path) -> Result<NativeLocal, String> {
        let shown = path.display().to_string();
        let file = |what: &str| {
            std::fs::File::open(path)
                .map_err(|e| format!("cannot open the model file {shown} ({what}): {e}"))
        };
        let bytes = file("size")?
            .metadata()
            .map_err(|e| format!("cannot read the size of {shown}: {e}"))?
            .len();
        let (_, header) = inspect(
            &mut std::io::BufReader::new(file("header")?),
            bytes,
            MEMORY_BUDGET,
        )
        .map_err(|e| format!("{shown} is not a model this engine can run: {e}"))?;
        let sha256 =
            llm_worker::gguf::digest::sha256_hex(&mut std::io::BufReader::new(file("hash")?))
                .map_err(|e| format!("cannot read {shown}: {e}"))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string())
            .unwrap_or_else(|| header.name.clone());
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (loaded_tx, loaded_rx) = mpsc::channel::<Result<ModelInfo, String>>();
        let mut reader = std::io::BufReader::new(file("weights")?);
        std::thread::Builder::new()
            .name("local-model".into())
            .spawn(move || {
                let mut engine = match Engine::load(&mut reader, bytes) {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = loaded_tx.send(Err(e));
                        return;
                    }
                };
                let _ = loaded_tx.send(Ok(engine.info.clone()));
                for job in inbox {
                    serve(&mut engine, job);
                }
            })
            .map_err(|e| format!("cannot start the model's thread: {e}"))?;
        let mut info = loaded_rx
            .recv()
            .map_err(|_| format!("the model's thread stopped while loading {shown}"))?
            .map_err(|e| format!("cannot load {shown}: {e}"))?;
        info.sha256 = sha256;
        Ok(NativeLocal {
            info,
            name,
            jobs,
            sampling: LocalSampling::default(),
        })
    }

    /// The same model answering with a spec's sampler settings.
    pub fn with_sampling(&self, sampling: &LocalSampling) -> NativeLocal {
        NativeLocal {
            sampling: sampling.clone(),
            ..self.clone()
        }
    }

    /// What a run records about this model: the file's name and hash,
    /// never its path.
    /// The file's SHA-256, hex.
    pub fn sha256(&self) -> &str {
        &self.info.sha256
    }

    pub fn spec(&self) -> ModelSpec {
        ModelSpec {
            provider: LOCAL_PROVIDER.into(),
            format: None,
            base_url: String::new(),
            model: self.name.clone(),
            sampling: Sampling::default(),
            file_sha256: Some(self.info.sha256.clone()),
            max_tokens: None,
        }
    }
}

/// Runs one job to its end, a cancel, or an error.
fn serve(engine: &mut Engine, job: Job) {
    let send = |m: Msg| {
        let _ = job.out.unbounded_send(m);
    };
    // A call cancelled while it waited for the model is not started.
    if job.cancel.load(Ordering::Relaxed) || job.out.is_closed() {
        return send(Msg::Cancelled);
    }
    let mut gen = match engine.start(&job.turns, &job.params) {
        Ok(g) => g,
        Err(e) => return send(Msg::Failed(e)),
    };
    loop {
        if job.cancel.load(Ordering::Relaxed) || job.out.is_closed() {
            return send(Msg::Cancelled);
        }
        match engine.step(&mut gen) {
            Ok(Step::Token { text }) if !text.is_empty() => send(Msg::Delta(text)),
            Ok(Step::Done(finish)) => {
                return send(Msg::Done {
                    prompt: gen.prompt_tokens() as u64,
                    output: gen.output_tokens() as u64,
                    finish: finish.as_str(),
                    held: gen.held(),
                })
            }
            Ok(_) => {}
            Err(e) => return send(Msg::Failed(e)),
        }
    }
}

fn local_err(detail: String) -> ModelError {
    ModelError::Local { detail }
}

impl ChatModel for NativeLocal {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            use futures::future::{select, Either};
            use futures::StreamExt;
            let (out, mut rx) = futures::channel::mpsc::unbounded();
            let stop = Arc::new(AtomicBool::new(false));
            let job = Job {
                turns: turns(req),
                params: gen_params(req, &self.sampling),
                cancel: stop.clone(),
                out,
            };
            self.jobs
                .send(job)
                .map_err(|_| local_err("the local model's thread has stopped".into()))?;
            let mut text = String::new();
            loop {
                let msg = match select(rx.next(), cancel.cancelled()).await {
                    Either::Left((Some(m), _)) => m,
                    Either::Left((None, _)) => {
                        return Err(local_err("the local model stopped answering".into()))
                    }
                    Either::Right(_) => {
                        stop.store(true, Ordering::Relaxed);
                        return Err(ModelError::Cancelled);
                    }
                };
                match msg {
                    Msg::Delta(d) => {
                        text.push_str(&d);
                        sink(StreamDelta::Text(d));
                    }
                    Msg::Done {
                        prompt,
                        output,
                        finish,
                        held,
                    } => {
                        return Ok(ChatResponse {
                            text,
                            tool_calls: Vec::new(),
                            usage: Usage::counted(prompt, output),
                            finish_reason: Some(finish.into()),
                            model: Some(self.name.clone()),
                            replayed: false,
                            structured: roundtable::engine::model::local::held_mode(req, held),
                        })
                    }
                    Msg::Cancelled => return Err(ModelError::Cancelled),
                    Msg::Failed(e) => return Err(local_err(e)),
                }
            }
        })
    }
}
