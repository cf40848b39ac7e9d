//! Provider clients (OpenAI-compatible and Anthropic wire formats, SSE) are
//! in the `run_view` chunk, not in the core module: a run on a provider
//! holds a [`LazyProvider`], which loads the real client with its first
//! call. The demo model needs none of it. The in-browser model's client
//! (`platform::local_model`) loads with the `extras` chunk, as its Settings
//! do; its worker and wasm are fetched on its first request.

use super::lazy::lazy_part;
use super::state::platform;
use crate::engine::model::demo;
use crate::engine::model::factory::http_model;
use crate::engine::model::providers::http::WireFormat;
use crate::engine::model::{Call, Completion};
use crate::engine::model::{ChatModel, ModelError};
use crate::engine::run::ModelSpec;
use leptos::prelude::Set;
use std::cell::RefCell;
use std::rc::Rc;

lazy_part! { run_view:
    fn client(spec: ModelSpec, format: WireFormat, key: Option<String>) -> Rc<dyn ChatModel> {
        http_model(&spec, format, key, &platform(0, demo::no_script))
    }
}

lazy_part! { extras:
    fn local_client(spec: ModelSpec) -> Rc<dyn ChatModel> {
        let status = super::state::local_status();
        Rc::new(crate::platform::local_model::LocalModel::for_spec(
            &spec,
            Rc::new(move |s| status.set(s)),
        ))
    }
}

/// A provider's client, loaded on the first call (the spec is validated).
/// No wire format: the in-browser model.
pub struct LazyProvider {
    spec: ModelSpec,
    format: Option<WireFormat>,
    key: Option<String>,
    loaded: RefCell<Option<Rc<dyn ChatModel>>>,
}

impl LazyProvider {
    pub fn new(spec: ModelSpec, format: Option<WireFormat>, key: Option<String>) -> Self {
        LazyProvider {
            spec,
            format,
            key,
            loaded: RefCell::new(None),
        }
    }

    async fn get(&self) -> Result<Rc<dyn ChatModel>, ModelError> {
        if let Some(m) = self.loaded.borrow().as_ref() {
            return Ok(m.clone());
        }
        let m = match self.format {
            Some(format) => client(self.spec.clone(), format, self.key.clone()).await,
            None => local_client(self.spec.clone()).await,
        }
        .map_err(|_| ModelError::Network {
            detail: "the page could not load its provider client".into(),
            hint: Some("Check your connection, then reload the page.".into()),
        })?;
        *self.loaded.borrow_mut() = Some(m.clone());
        Ok(m)
    }
}

impl ChatModel for LazyProvider {
    fn name(&self) -> String {
        self.spec.model.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            let model = self.get().await?;
            model.complete(Call::new(req, sink, cancel)).await
        })
    }
}
