//! `roundtable share encode|decode`: the share-link payload of a run file
//! (or the `lesson=…` / `compare=…` fragment of a lesson or comparison
//! file) and back, on stdin/stdout, for tests and scripting.

use roundtable::engine::lesson::{self, Bundle};
use roundtable::engine::run::RunDoc;
use roundtable::engine::share::{self, bundle};
use std::io::Read;

/// Returns the exit code; errors go to stderr.
pub fn run(encode: bool) -> i32 {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("error: cannot read stdin: {e}");
        return 2;
    }
    let is_bundle = serde_json::from_str::<serde_json::Value>(&input)
        .ok()
        .and_then(|v| v.get("format")?.as_str().map(str::to_string))
        .is_some_and(|f| f == lesson::FORMAT_LESSON || f == lesson::FORMAT_COMPARISON);
    if encode && is_bundle {
        return match Bundle::from_json(&input)
            .and_then(|b| bundle::encode(&b).map_err(|e| e.user_message()))
        {
            Ok(fragment) => {
                println!("{fragment}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    if !encode && bundle::is_bundle_link(input.trim()) {
        return match bundle::decode(&input) {
            Ok(b) => {
                println!("{}", b.to_json_pretty());
                0
            }
            Err(e) => {
                eprintln!("error: {}", e.user_message());
                1
            }
        };
    }
    if encode {
        let doc = match RunDoc::from_json(&input) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        };
        match share::encode(&doc) {
            Ok(payload) => {
                println!("{payload}");
                0
            }
            Err(e) => {
                eprintln!("error: cannot encode the run: {e}");
                1
            }
        }
    } else {
        match share::decode(&input) {
            Ok(doc) => {
                println!("{}", doc.to_json_pretty());
                0
            }
            Err(e) => {
                eprintln!("error: {}", e.user_message());
                1
            }
        }
    }
}
