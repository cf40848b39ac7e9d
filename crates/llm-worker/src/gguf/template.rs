//! The chat template: the file's own (`tokenizer.chat_template`, Jinja,
//! rendered with minijinja), or ChatML when the file has none or its
//! template does not render.

use crate::protocol::ChatTurn;
use minijinja::{context, Environment, Error, ErrorKind};

pub const CHATML: &str = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

pub struct Template {
    env: Environment<'static>,
    /// `file` or `ChatML (fallback: ...)`.
    pub source: String,
    bos: String,
    eos: String,
}

fn raise_exception(msg: String) -> Result<String, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, msg))
}

fn environment(source: &str) -> Result<Environment<'static>, Error> {
    let mut env = Environment::new();
    env.add_function("raise_exception", raise_exception);
    env.add_template_owned("chat", source.to_string())?;
    Ok(env)
}

impl Template {
    pub fn new(file_template: Option<&str>, bos: &str, eos: &str) -> Template {
        let probe = [
            ChatTurn {
                role: "system".into(),
                content: "s".into(),
            },
            ChatTurn {
                role: "user".into(),
                content: "u".into(),
            },
            ChatTurn {
                role: "assistant".into(),
                content: "a".into(),
            },
            ChatTurn {
                role: "user".into(),
                content: "u".into(),
            },
        ];
        let mut t = Template {
            env: Environment::new(),
            source: String::new(),
            bos: bos.into(),
            eos: eos.into(),
        };
        if let Some(src) = file_template {
            match environment(src) {
                Ok(env) => {
                    t.env = env;
                    match t.render(&probe) {
                        Ok(_) => {
                            t.source = "file".into();
                            return t;
                        }
                        Err(e) => t.source = format!("ChatML (the file's template fails: {e})"),
                    }
                }
                Err(e) => t.source = format!("ChatML (the file's template does not parse: {e})"),
            }
        } else {
            t.source = "ChatML (the file has no template)".into();
        }
        t.env = environment(CHATML).unwrap_or_default();
        t
    }

    /// The prompt for `turns`, ending where the assistant's answer begins.
    /// Tool results become user turns (the text tool protocol).
    pub fn render(&self, turns: &[ChatTurn]) -> Result<String, String> {
        let messages: Vec<_> = turns
            .iter()
            .map(|t| {
                let role = match t.role.as_str() {
                    "system" | "user" | "assistant" => t.role.as_str(),
                    _ => "user",
                };
                context! { role => role, content => t.content }
            })
            .collect();
        let tmpl = self
            .env
            .get_template("chat")
            .map_err(|e| format!("chat template: {e}"))?;
        tmpl.render(context! {
            messages => messages,
            add_generation_prompt => true,
            bos_token => self.bos,
            eos_token => self.eos,
        })
        .map_err(|e| format!("the chat template failed on this conversation: {e}"))
    }
}
