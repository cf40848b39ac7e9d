//! What every command that runs coordinators shares: the model options
//! (`--model`, `--provider`, `--base-url`, the key from the environment),
//! retries, parallel calls, spend caps, the demo model's pace, `--quiet`
//! and `--json`; the run config they make; the embedder.

use super::flags::Flags;
use super::http::UreqTransport;
use super::local_model::NativeLocal;
use roundtable::engine::base::cancel::CancelToken;
use roundtable::engine::base::clock::{Clock, SystemClock};
use roundtable::engine::model::demo::Script;
use roundtable::engine::model::embed::{Embedder, LexicalEmbedder};
use roundtable::engine::model::factory::{build_model, Platform};
use roundtable::engine::model::providers::embeddings::HttpEmbedder;
use roundtable::engine::model::providers::http::{Endpoint, WireFormat};
use roundtable::engine::model::providers::presets::{preset, PresetKind};
use roundtable::engine::model::spec::{
    temperature_problem, LocalSampling, Sampling, LOCAL_PROVIDER,
};
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig};
use roundtable::engine::views::repairs::RepairSum;
use std::path::Path;
use std::rc::Rc;

pub struct Common {
    pub spec: ModelSpec,
    /// From `ROUNDTABLE_API_KEY` only (a flag would show in the process list).
    pub key: Option<String>,
    pub clock: Rc<dyn Clock>,
    pub retries: Option<u32>,
    /// LLM calls at once inside a run.
    pub parallel_calls: Option<u32>,
    pub demo_delay_ms: u64,
    /// `--spend-cap` / `--token-cap`: a run's, or for a batch the batch's.
    pub cap: SpendCap,
    pub quiet: bool,
    pub json: bool,
    embedding_model: Option<String>,
    embedding_url: Option<String>,
    /// `--prompts FILE`: its path and text (checked against the
    /// coordinator's templates when a run's config is made).
    prompts: Option<(String, String)>,
    /// `--provider local --model-file F`: loaded once, shared by every run.
    local: Option<Rc<NativeLocal>>,
}

/// The options [`Common::read`] takes, for the usage text.
pub const USAGE: &str = "\
MODEL OPTIONS (every command that runs coordinators):
  --model NAME           model name; `demo` = the offline demo model (default)
  --provider ID          openai-compatible | anthropic | a preset id (openai, groq, ollama, ...)
  --base-url URL         provider base URL (defaults to the preset's)
  --model-file F.gguf    with --provider local: run this GGUF file in this process, on the
                         engine of the page's local model (text tool protocol; greedy at
                         temperature 0 or where neither the run nor the step sets one)
  --threads N            with --provider local: the threads the model's products run on
                         (default: the machine's cores)
  --temperature T        the run's sampling temperature: every request that does not set
                         its own by design (recorded in the run file)
  --max-tokens N         the longest answer of every request that does not set its own
                         (the travel compiler sets room for its whole plan)
  --sampler-top-k N      with --provider local, llama.cpp's sampler settings (recorded in the
  --top-p P              run file; each left out is llama.cpp's default: top-k 40 (0 = off),
  --min-p P              top-p 0.95 and min-p 0.05 (in [0, 1]; 1 and 0 = off), repeat
  --repeat-penalty X     penalty 1.0 (off; 1.1 discourages loops), repeat window 64 tokens).
  --repeat-last-n N      At temperature 0 only the penalty changes the answer (greedy).
                         (llama.cpp's --top-k is --sampler-top-k here: MAEL's --top-k is the
                         number of retrieved examples.)
  --parallel-calls N     LLM calls at once inside a run (default 4)
  --retries N            attempts per call, first included (default 4)
  --demo-delay-ms N      pause between demo chunks (default 0)
  --spend-cap USD        stop cleanly before the call whose estimated cost would pass this
                         (for a batch: the whole batch's cap)
  --token-cap N          the same in tokens (used for models without a known price)
  --embedding-model M    embeddings (MAEL's pools, ACT+'s bank): this model of the provider
                         (or of --embedding-url); default the built-in lexical embedder
  --embedding-url URL    an OpenAI-compatible server for the embeddings
  --quiet                no progress on stderr
  --json                 print JSON instead of tables

The API key is read from the environment variable ROUNDTABLE_API_KEY; it is
never written to a run file.";

impl Common {
    pub fn read(f: &Flags) -> Result<Common, String> {
        let spend = f.real("spend-cap")?.map(|x| x.max(0.0));
        let provider = f.text("provider")?.unwrap_or_default();
        // Checked before a model file is loaded.
        let sampling = sampling_flags(f, provider == LOCAL_PROVIDER)?;
        match (f.number::<usize>("threads")?, provider == LOCAL_PROVIDER) {
            (Some(0), _) => return Err("--threads must be at least 1".into()),
            (Some(n), true) => {
                llm_worker::model::quant::native::set_threads(n);
            }
            (Some(_), false) => {
                return Err("--threads goes with --provider local --model-file F.gguf".into())
            }
            (None, _) => {}
        }
        let local = match (provider.as_str(), f.text("model-file")?) {
            (LOCAL_PROVIDER, Some(path)) => Some(Rc::new(NativeLocal::open(Path::new(&path))?)),
            (LOCAL_PROVIDER, None) => {
                return Err("--provider local needs --model-file F.gguf (a GGUF model file)".into())
            }
            (_, Some(_)) => return Err("--model-file goes with --provider local".into()),
            _ => None,
        };
        let mut spec = match &local {
            Some(l) => l.spec(),
            None => model_spec(f.text("model")?, provider, f.text("base-url")?)?,
        };
        spec.max_tokens = match f.number::<u32>("max-tokens")? {
            Some(0) => return Err("--max-tokens must be at least 1".into()),
            n => n,
        };
        let spec = spec.with_sampling(&sampling);
        Ok(Common {
            spec,
            key: std::env::var("ROUNDTABLE_API_KEY")
                .ok()
                .filter(|k| !k.is_empty()),
            clock: Rc::new(SystemClock::default()),
            retries: f.number("retries")?,
            parallel_calls: f.number("parallel-calls")?,
            demo_delay_ms: f.number("demo-delay-ms")?.unwrap_or(0),
            cap: SpendCap {
                usd: spend,
                tokens: f.number("token-cap")?,
            },
            quiet: f.switch("quiet")?,
            json: f.switch("json")?,
            embedding_model: f.text("embedding-model")?,
            embedding_url: f.text("embedding-url")?,
            prompts: match f.text("prompts")? {
                Some(path) => {
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| format!("cannot read the prompt file {path}: {e}"))?;
                    Some((path, text))
                }
                None => None,
            },
            local,
        })
    }

    /// The native platform: ureq, the clock, the demo model's pace, and
    /// the demo model playing `script`.
    pub fn platform(&self, script: Script) -> Platform {
        Platform {
            transport: Rc::new(UreqTransport::default()),
            clock: self.clock.clone(),
            demo_chunk_delay_ms: self.demo_delay_ms,
            demo_script: script,
        }
    }

    pub fn model(&self, script: Script) -> Result<Rc<dyn ChatModel>, String> {
        self.build(&self.spec, &self.platform(script))
    }

    /// The model `spec` names: the loaded local model (with the spec's
    /// sampler settings), or a provider's client, or the demo model.
    pub fn build(
        &self,
        spec: &ModelSpec,
        platform: &Platform,
    ) -> Result<Rc<dyn ChatModel>, String> {
        match &self.local {
            Some(local) if spec.is_local() => match spec.file_sha256.as_deref() {
                Some(sha) if sha != local.sha256() => Err(format!(
                    "this run was made with another model file (SHA-256 {sha}); give that file with --model-file"
                )),
                _ => Ok(Rc::new(local.with_sampling(&spec.sampling.local))),
            },
            _ => build_model(spec, self.key.clone(), platform),
        }
    }

    /// A run's config with the options every run takes (`run_id` names it).
    pub fn config(&self, coordinator: &str, task: &str, run_id: &str) -> Result<RunConfig, String> {
        let mut config = RunConfig::new(coordinator, task, self.spec.clone());
        if let Some((path, text)) = &self.prompts {
            let (defaults, specs) = roundtable::engine::coordinators::prompt_templates(coordinator)
                .ok_or_else(|| {
                    format!("--prompts: the coordinator \"{coordinator}\" has no prompt templates")
                })?;
            let edits = roundtable::engine::prompts::edits_in_file(text, defaults, specs)
                .map_err(|e| format!("--prompts {path}: {e}"))?;
            config.prompts = edits;
        }
        config.created_ms = self.clock.epoch_ms().floor();
        config.run_id = format!("{run_id}-{}", config.created_ms as u64);
        if let Some(n) = self.parallel_calls {
            config.max_concurrency = n.max(1);
        }
        if let Some(n) = self.retries {
            config.retry.max_attempts = n.max(1);
        }
        Ok(config)
    }

    /// The embedder the options name: the built-in lexical one, or an
    /// OpenAI-compatible embeddings model (probed once). MAEL's pools and
    /// ACT+'s bank use it.
    pub fn embedder(&self) -> Result<Rc<dyn Embedder>, String> {
        let Some(model) = self.embedding_model.clone() else {
            return Ok(Rc::new(LexicalEmbedder));
        };
        let (provider, url) = match &self.embedding_url {
            Some(url) => ("custom", url.clone()),
            None if self.spec.format == Some(WireFormat::OpenaiCompatible) => {
                (self.spec.provider.as_str(), self.spec.base_url.clone())
            }
            None => return Err("--embedding-model needs an OpenAI-compatible --provider, or --embedding-url (the demo model and Anthropic have no embeddings; leave it out for the lexical embedder)".into()),
        };
        let endpoint = Endpoint::new(WireFormat::OpenaiCompatible, &url, &model, self.key.clone());
        let e = HttpEmbedder::new(
            provider,
            endpoint,
            Rc::new(UreqTransport::default()),
            self.clock.clone(),
        );
        futures::executor::block_on(e.probe(&CancelToken::new()))
            .map_err(|e| format!("the embeddings model did not answer: {}", e.user_message()))?;
        Ok(Rc::new(e))
    }
}

/// The local model's sampler flags, checked; only the local model
/// (`local`) takes them. llama.cpp's `--top-k` is `--sampler-top-k`:
/// `--top-k` is MAEL's (retrieved examples per step), read by its commands.
pub const SAMPLER_FLAGS: [&str; 5] = [
    "sampler-top-k",
    "top-p",
    "min-p",
    "repeat-penalty",
    "repeat-last-n",
];

/// The run's sampling from the flags, checked: `--temperature` (any
/// provider) first, then the local model's sampler flags.
fn sampling_flags(f: &Flags, local: bool) -> Result<Sampling, String> {
    // Checked as typed (the message quotes the value given).
    let temperature = f.real("temperature")?;
    if let Some(problem) = temperature.and_then(temperature_problem) {
        return Err(format!("--temperature {problem}"));
    }
    let real = |name: &str| f.real(name).map(|x| x.map(|x| x as f32));
    let s = LocalSampling {
        top_k: f.number::<u32>("sampler-top-k")?,
        top_p: real("top-p")?,
        min_p: real("min-p")?,
        repeat_penalty: real("repeat-penalty")?,
        repeat_last_n: f.number::<u32>("repeat-last-n")?,
    };
    if let Some((flag, problem)) = s.problems().into_iter().next() {
        let flag = if flag == "top-k" {
            "sampler-top-k"
        } else {
            flag
        };
        return Err(format!("--{flag} {problem}"));
    }
    if !local && !s.is_empty() {
        let flag = SAMPLER_FLAGS
            .into_iter()
            .find(|n| f.has(n))
            .unwrap_or("sampler-top-k");
        return Err(format!(
            "--{flag} sets the local model's sampler: it goes with --provider local --model-file F.gguf"
        ));
    }
    Ok(Sampling {
        temperature: temperature.map(|t| t as f32),
        local: s,
    })
}

/// Resolves `--provider/--base-url/--model` into a model spec.
fn model_spec(
    model: Option<String>,
    provider: String,
    base_url: Option<String>,
) -> Result<ModelSpec, String> {
    let model = model.unwrap_or_else(|| "demo".into());
    if provider.is_empty() || provider == "demo" {
        if model != "demo" {
            return Err(format!(
                "--model {model} needs --provider (openai-compatible, anthropic or a preset id); \
                 use --model demo for the offline demo model"
            ));
        }
        return Ok(ModelSpec::demo());
    }
    let (id, format, default_url) = match provider.as_str() {
        "openai-compatible" => ("custom".to_string(), WireFormat::OpenaiCompatible, ""),
        "anthropic" if base_url.is_some() => {
            ("custom-anthropic".to_string(), WireFormat::Anthropic, "")
        }
        other => match preset(other) {
            Some(p) => match p.kind {
                PresetKind::Http(f) => (p.id.to_string(), f, p.base_url),
                PresetKind::Demo => return Ok(ModelSpec::demo()),
                PresetKind::Local => {
                    return Err("--provider local needs --model-file F.gguf".into())
                }
            },
            None => return Err(format!("unknown provider \"{other}\"")),
        },
    };
    Ok(ModelSpec {
        provider: id,
        format: Some(format),
        base_url: base_url.unwrap_or_else(|| default_url.to_string()),
        model,
        sampling: Sampling::default(),
        file_sha256: None,
        max_tokens: None,
    })
}

/// A JSON line with the replies fields added: `replies`, `repaired`,
/// `unreadable` and `repaired_by_step` ({step: {replies, repaired,
/// unreadable}}).
pub fn with_repairs(mut line: serde_json::Value, repairs: &RepairSum) -> serde_json::Value {
    if let (Some(map), Ok(serde_json::Value::Object(more))) =
        (line.as_object_mut(), serde_json::to_value(repairs))
    {
        map.extend(more);
    }
    line
}
