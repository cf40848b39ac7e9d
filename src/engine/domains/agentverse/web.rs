//! AgentVerse's WebEnv through a search endpoint the user sets: a SearXNG
//! instance's JSON API (`GET {endpoint}/search?q=…&format=json`, its
//! `results` of `{title, url, content}`). `search_and_browse` searches and
//! reads what the first results say; `browse_website` reads a page's text.
//! Pure: the URLs to get and the reading of what came back; getting them
//! is the platform's ([`WebGet`]: the page's fetch, the CLI's HTTP), held to
//! 127.0.0.1 in every test. A page or a result is untrusted text: markup is
//! stripped, never rendered, and what an agent reads is capped.

use super::filesystem::capped;
use futures::future::LocalBoxFuture;
use serde_json::Value;

/// The platform's GET: the body as text, or why not (a status that is not
/// 2xx is an error naming it).
pub trait WebGet {
    fn get(&self, url: &str) -> LocalBoxFuture<'_, Result<String, String>>;
}

/// The run's web: the search endpoint and the platform's GET (a run
/// resource; without it the web tools are not offered).
pub struct Web {
    pub endpoint: String,
    pub client: std::rc::Rc<dyn WebGet>,
}

/// Results read from one search.
pub const RESULTS: usize = 5;

/// A call, its arguments read.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Search {
        query: String,
        goals: String,
        region: Option<String>,
    },
    Browse {
        url: String,
        goals: String,
    },
}

fn text_arg(args: &Value, name: &str, tool: &str) -> Result<String, String> {
    match args.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            Err(format!("{tool} needs \"{name}\" (text)"))
        }
        Some(_) => Err(format!("{tool}'s \"{name}\" must be text")),
    }
}

/// Reads a call of `tool` with `args` (a JSON object).
pub fn read_call(tool: &str, args: &Value) -> Result<Call, String> {
    if !args.is_object() {
        return Err(format!("{tool}'s arguments must be an object"));
    }
    match tool {
        "WebEnv_search_and_browse" => Ok(Call::Search {
            query: text_arg(args, "search_query", tool)?,
            goals: text_arg(args, "goals_to_browse", tool)?,
            region: args
                .get("region")
                .and_then(Value::as_str)
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
        }),
        "WebEnv_browse_website" => {
            let url = text_arg(args, "url", tool)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "{tool} reads http or https addresses, not {:?}",
                    url.chars().take(80).collect::<String>()
                ));
            }
            Ok(Call::Browse {
                url,
                goals: text_arg(args, "goals_to_browse", tool)?,
            })
        }
        other => Err(format!("no web tool named {other}")),
    }
}

/// `s` percent-encoded for a query string.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether the endpoint answers a search as SearXNG's JSON API does (what
/// the setup's "Check" says): how many results one search gave, or why
/// it failed.
pub async fn check(web: &Web) -> Result<usize, String> {
    let body = web
        .client
        .get(&search_url(&web.endpoint, "weather", None))
        .await?;
    read_results(&body).map(|hits| hits.len())
}

/// The SearXNG JSON API's address for `query`.
pub fn search_url(endpoint: &str, query: &str, region: Option<&str>) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    let base = base.strip_suffix("/search").unwrap_or(base);
    let mut url = format!("{base}/search?q={}&format=json", encode(query));
    if let Some(r) = region {
        url.push_str(&format!("&language={}", encode(r)));
    }
    url
}

/// One search result.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub content: String,
}

/// The results of a SearXNG JSON answer, the first [`RESULTS`] that have
/// an address.
pub fn read_results(body: &str) -> Result<Vec<Hit>, String> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| format!("the search endpoint's answer is not JSON ({e}); is it a SearXNG JSON API (format=json)?"))?;
    let results = v.get("results").and_then(Value::as_array).ok_or(
        "the search endpoint's answer has no \"results\" list (SearXNG's JSON API has one)",
    )?;
    let text = |r: &Value, k: &str| {
        r.get(k)
            .and_then(Value::as_str)
            .map(|s| plain(s).chars().take(600).collect::<String>())
            .unwrap_or_default()
    };
    Ok(results
        .iter()
        .filter(|r| r.get("url").and_then(Value::as_str).is_some())
        .take(RESULTS)
        .map(|r| Hit {
            title: text(r, "title"),
            url: text(r, "url"),
            content: text(r, "content"),
        })
        .collect())
}

/// What the agent reads of a search.
pub fn results_text(query: &str, goals: &str, hits: &[Hit]) -> String {
    if hits.is_empty() {
        return format!("No results for \"{query}\".");
    }
    let mut s = format!("Results for \"{query}\" (looking for: {goals}):");
    for (i, h) in hits.iter().enumerate() {
        s.push_str(&format!(
            "\n{}. {} <{}>\n   {}",
            i + 1,
            h.title,
            h.url,
            h.content
        ));
    }
    capped(&s)
}

/// A page's text: scripts, styles and tags dropped, entities of the common
/// kind decoded, white space collapsed.
pub fn plain(html: &str) -> String {
    let mut out = String::new();
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let bytes = html.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let rest = &lower[i..];
            let skip_to = ["script", "style"].iter().find_map(|tag| {
                rest.starts_with(&format!("<{tag}"))
                    .then(|| rest.find(&format!("</{tag}")).map(|e| i + e))
                    .flatten()
            });
            let from = skip_to.unwrap_or(i);
            match lower[from..].find('>') {
                Some(end) => {
                    i = from + end + 1;
                    out.push(' ');
                }
                None => break,
            }
            continue;
        }
        let ch = html[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the agent reads of a page.
pub fn page_text(url: &str, goals: &str, html: &str) -> String {
    let text = plain(html);
    if text.is_empty() {
        return format!("{url} has no text to read.");
    }
    capped(&format!("{url} (looking for: {goals}):\n{text}"))
}

/// Runs a call on `web`: what the agent is told, or why not.
pub async fn run(web: &Web, call: &Call) -> Result<String, String> {
    match call {
        Call::Search {
            query,
            goals,
            region,
        } => {
            let url = search_url(&web.endpoint, query, region.as_deref());
            let body = web.client.get(&url).await?;
            Ok(results_text(query, goals, &read_results(&body)?))
        }
        Call::Browse { url, goals } => {
            let body = web.client.get(url).await?;
            Ok(page_text(url, goals, &body))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_search_is_searxngs_json_api_and_its_results_are_read_as_text() {
        assert_eq!(
            search_url("http://127.0.0.1:8888/", "best books & more", Some("en-US")),
            "http://127.0.0.1:8888/search?q=best+books+%26+more&format=json&language=en-US"
        );
        assert_eq!(
            search_url("http://h/search", "x", None),
            "http://h/search?q=x&format=json"
        );
        let body = json!({"results": [
            {"title": "<b>Dune</b>", "url": "http://127.0.0.1/dune", "content": "A desert planet &amp; spice."},
            {"title": "no address"},
        ]})
        .to_string();
        let hits = read_results(&body).expect("read");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "Dune");
        assert_eq!(hits[0].content, "A desert planet & spice.");
        let t = results_text("books", "bestsellers", &hits);
        assert!(
            t.contains("1. Dune <http://127.0.0.1/dune>\n   A desert planet & spice."),
            "{t}"
        );
        assert!(read_results("<html>").unwrap_err().contains("not JSON"));
        assert!(read_results("{}").unwrap_err().contains("no \"results\""));
        assert_eq!(results_text("q", "g", &[]), "No results for \"q\".");
    }

    #[test]
    fn a_page_is_read_as_its_text_without_markup_or_scripts() {
        let html = "<html><head><style>p{color:red}</style><script>alert('x<y')</script></head><body><h1>Top&nbsp;5</h1><p>One &lt;two&gt;</p></body></html>";
        assert_eq!(plain(html), "Top 5 One <two>");
        assert!(page_text("http://127.0.0.1/p", "g", "<p></p>").contains("no text"));
        assert_eq!(plain("unclosed <b"), "unclosed");
    }

    #[test]
    fn calls_are_read_by_their_schema() {
        let s = read_call(
            "WebEnv_search_and_browse",
            &json!({"search_query": "books", "goals_to_browse": "top 5"}),
        );
        assert_eq!(
            s,
            Ok(Call::Search {
                query: "books".into(),
                goals: "top 5".into(),
                region: None
            })
        );
        assert!(read_call(
            "WebEnv_browse_website",
            &json!({"url": "file:///etc/passwd", "goals_to_browse": "x"})
        )
        .unwrap_err()
        .contains("http or https"));
        assert!(
            read_call("WebEnv_search_and_browse", &json!({"goals_to_browse": "x"}))
                .unwrap_err()
                .contains("needs \"search_query\"")
        );
    }
}
