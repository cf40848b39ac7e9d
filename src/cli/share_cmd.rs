//! `roundtable share encode|decode`: the share-link payload of a run file
//! and back, on stdin/stdout, for tests and scripting.

use roundtable::engine::run::RunDoc;
use roundtable::engine::share;
use std::io::Read;

/// Returns the exit code; errors go to stderr.
pub fn run(encode: bool) -> i32 {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("error: cannot read stdin: {e}");
        return 2;
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
