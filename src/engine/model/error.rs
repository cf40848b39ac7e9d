//! Typed model errors, each with a message that tells the user what to do.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelError {
    /// 401/403: the key is missing, wrong or lacks access.
    Auth { status: u16, detail: String },
    /// 429: too many requests; `retry_after_ms` from the Retry-After header.
    RateLimited {
        retry_after_ms: Option<u64>,
        detail: String,
    },
    /// 5xx from the provider.
    Server { status: u16, detail: String },
    /// Other 4xx (bad model name, bad request).
    BadRequest { status: u16, detail: String },
    /// No answer (or no new bytes) within the time limit.
    Timeout { after_ms: u64 },
    /// The request never got an HTTP answer: offline, DNS, CORS, refused.
    Network {
        detail: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// The user stopped the run.
    Cancelled,
    /// The answer could not be understood (bad JSON, cut stream, ...).
    Malformed { detail: String },
    /// Not sent: its estimated cost would pass the run's (or batch's)
    /// spend cap. `detail` is the whole message for the user.
    SpendCap { detail: String },
    /// The in-browser model could not answer (no model, prompt too long,
    /// its worker failed). `detail` is the whole message for the user.
    Local { detail: String },
}

impl ModelError {
    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ModelError::RateLimited { .. } | ModelError::Server { .. } | ModelError::Timeout { .. }
        )
    }

    /// A short machine-friendly name of the kind.
    pub fn kind(&self) -> &'static str {
        match self {
            ModelError::Auth { .. } => "auth",
            ModelError::RateLimited { .. } => "rate_limited",
            ModelError::Server { .. } => "server",
            ModelError::BadRequest { .. } => "bad_request",
            ModelError::Timeout { .. } => "timeout",
            ModelError::Network { .. } => "network",
            ModelError::Cancelled => "cancelled",
            ModelError::Malformed { .. } => "malformed",
            ModelError::SpendCap { .. } => "spend_cap",
            ModelError::Local { .. } => "local",
        }
    }

    /// What happened and what the user can do about it.
    pub fn user_message(&self) -> String {
        match self {
            ModelError::Auth { status, detail } => format!(
                "The provider refused the API key (HTTP {status}). Check the API key in Settings \
                 and that it has access to this model.{}",
                suffix(detail)
            ),
            ModelError::RateLimited { retry_after_ms, detail } => {
                let wait = retry_after_ms
                    .map(|ms| format!(" It asked to wait {:.0} s.", ms as f64 / 1000.0))
                    .unwrap_or_default();
                format!(
                    "The provider is rate-limiting requests (HTTP 429).{wait} Wait a minute, lower \
                     the concurrency, or check your plan's limits.{}",
                    suffix(detail)
                )
            }
            ModelError::Server { status, detail } => format!(
                "The provider had a server error (HTTP {status}) and kept failing after retries. \
                 Try again later or pick another model.{}",
                suffix(detail)
            ),
            ModelError::BadRequest { status, detail } => format!(
                "The provider rejected the request (HTTP {status}). Check the model name and base \
                 URL in Settings.{}",
                suffix(detail)
            ),
            ModelError::Timeout { after_ms } => format!(
                "No answer from the provider for {:.0} s. Check your connection or try a faster model.",
                *after_ms as f64 / 1000.0
            ),
            ModelError::Network { detail, hint } => {
                let mut s = format!(
                    "Could not reach the provider ({detail}). Check the base URL and your connection; \
                     a server must also allow requests from this page (CORS)."
                );
                if let Some(h) = hint {
                    s.push(' ');
                    s.push_str(h);
                }
                s
            }
            ModelError::Cancelled => "The request was stopped.".to_string(),
            ModelError::Malformed { detail } => format!(
                "The provider's answer could not be read ({detail}). Try again; if it keeps \
                 happening, the base URL may not point to a compatible API."
            ),
            ModelError::SpendCap { detail } => detail.clone(),
            ModelError::Local { detail } => detail.clone(),
        }
    }

    /// Classifies an HTTP error status with the body text the server sent.
    pub fn from_status(status: u16, retry_after_ms: Option<u64>, body: &str) -> ModelError {
        let detail = error_detail(body);
        match status {
            401 | 403 => ModelError::Auth { status, detail },
            429 => ModelError::RateLimited {
                retry_after_ms,
                detail,
            },
            408 => ModelError::Timeout { after_ms: 0 },
            s if s >= 500 => ModelError::Server { status, detail },
            _ => ModelError::BadRequest { status, detail },
        }
    }
}

fn suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(" Provider said: {detail}")
    }
}

/// Extracts a readable message from an error body (OpenAI and Anthropic both
/// use `{"error": {"message": ...}}`), falling back to the first 200 chars.
pub fn error_detail(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let msg = v
            .pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(|m| m.as_str());
        if let Some(m) = msg {
            return truncate(m, 300);
        }
    }
    truncate(body.trim(), 200)
}

pub(crate) fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max_chars).collect();
        t.push('…');
        t
    }
}

/// Parses a Retry-After header value: delay in seconds or an HTTP date
/// (dates are not interpreted; callers fall back to backoff).
pub fn parse_retry_after(value: &str) -> Option<u64> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some((secs * 1000.0).min(3_600_000.0) as u64);
        }
    }
    None
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.user_message())
    }
}

impl std::error::Error for ModelError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(ModelError::from_status(401, None, "").kind(), "auth");
        assert_eq!(ModelError::from_status(403, None, "").kind(), "auth");
        assert_eq!(
            ModelError::from_status(429, Some(2000), "").kind(),
            "rate_limited"
        );
        assert_eq!(ModelError::from_status(503, None, "").kind(), "server");
        assert_eq!(ModelError::from_status(404, None, "").kind(), "bad_request");
        assert!(ModelError::from_status(500, None, "").is_retryable());
        assert!(!ModelError::from_status(401, None, "").is_retryable());
    }

    #[test]
    fn auth_message_says_check_key() {
        let e = ModelError::from_status(401, None, r#"{"error":{"message":"Incorrect API key"}}"#);
        let m = e.user_message();
        assert!(m.contains("Check the API key"), "{m}");
        assert!(m.contains("Incorrect API key"), "{m}");
    }

    #[test]
    fn retry_after_parses_seconds() {
        assert_eq!(parse_retry_after("2"), Some(2000));
        assert_eq!(parse_retry_after(" 0.5 "), Some(500));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}
