//! Share links: random runs round-trip exactly; bad links give clear errors;
//! the decoder survives random and mutated input; links are short.
#![cfg(not(target_arch = "wasm32"))]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::execute;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::retry::SplitMix;
use roundtable::engine::run::random::random_run;
use roundtable::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunDoc};
use roundtable::engine::share::dict::LATEST;
use roundtable::engine::share::{compact, decode, encode, encode_as, fragment, fuzz, ShareError};
use std::rc::Rc;

#[test]
fn random_runs_round_trip_exactly() {
    let mut rng = SplitMix::new(42);
    for i in 0..400 {
        let doc = random_run(&mut rng, 5 + (i % 120));
        let link = encode(&doc).expect("encode");
        assert!(
            link.starts_with(&format!("{LATEST}.")),
            "new links are format {LATEST}"
        );
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "URL-safe: {link}"
        );
        let back = decode(&link).unwrap_or_else(|e| panic!("run {i}: {e}"));
        assert_eq!(back, doc, "run {i} round-trips");
    }
}

/// A single-agent run of the demo model: its text is in both dictionaries.
fn demo_run(task: &str) -> RunDoc {
    let clock = FakeClock::new();
    let config = RunConfig::new("single", task, ModelSpec::demo());
    let ctx = RunCtx::new(
        config.clone(),
        ModelRouter::single(Rc::new(DemoModel::new(
            Rc::new(clock.clone()),
            every_script,
        ))),
        Rc::new(clock),
    );
    futures::executor::block_on(execute(&ctx));
    RunDoc::new(config, ctx.events())
}

#[test]
fn links_of_format_1_keep_opening() {
    let mut rng = SplitMix::new(7);
    for i in 0..50 {
        let doc = random_run(&mut rng, 10 + i);
        let v1 = encode_as(&doc, 1).expect("encode v1");
        assert!(v1.starts_with("1."));
        assert_eq!(decode(&v1).expect("v1 decodes"), doc);
    }
    let doc = demo_run("Compare trains and planes for a 600 km trip.");
    let v1 = encode_as(&doc, 1).expect("encode v1");
    assert_eq!(decode(&v1).expect("v1 decodes"), doc);
}

/// A streamed delta cut out of its answer is read straight into its typed
/// event; one that holds more than its call (a field this version does not
/// know) is read as every other event is. Both read to the same run.
#[test]
fn cut_deltas_read_the_same_whichever_way_they_are_read() {
    let doc = demo_run("Compare trains and planes for a 600 km trip.");
    let tree = compact::to_compact(&doc).expect("compact");
    let cut = tree["e"]
        .as_array()
        .map_or(0, |e| e.iter().filter(|e| e.get("n").is_some()).count());
    assert!(
        cut >= 10,
        "the demo run streams its answers ({cut} cut deltas)"
    );
    assert_eq!(compact::from_compact(tree.clone()).expect("as made"), doc);
    let mut more = tree;
    for e in more["e"].as_array_mut().into_iter().flatten() {
        if let Some(o) = e.as_object_mut().filter(|o| o.contains_key("n")) {
            o.insert("added_later".into(), serde_json::json!(true));
        }
    }
    assert_eq!(compact::from_compact(more).expect("with a field more"), doc);
}

/// Links of every format as the versions that made them made them (4 and 5:
/// a MAEL demo run), committed with the runs they hold: each must keep
/// opening to exactly that run.
#[test]
fn committed_links_of_every_earlier_format_open_to_their_runs() {
    let links = [
        (
            include_str!("fixtures/share_v1.link"),
            include_str!("fixtures/share_v1.run.json"),
        ),
        (
            include_str!("fixtures/share_v2.link"),
            include_str!("fixtures/share_v2.run.json"),
        ),
        (
            include_str!("fixtures/share_v3.link"),
            include_str!("fixtures/share_v3.run.json"),
        ),
        (
            include_str!("fixtures/share_v4.link"),
            include_str!("fixtures/share_v4_v5.run.json"),
        ),
        (
            include_str!("fixtures/share_v5.link"),
            include_str!("fixtures/share_v4_v5.run.json"),
        ),
    ];
    assert_eq!(
        links.len() as u32,
        LATEST,
        "a committed link of every format"
    );
    for (i, (link, run)) in links.into_iter().enumerate() {
        let run = RunDoc::from_json(run).expect("run file");
        assert!(link.starts_with(&format!("{}.", i + 1)));
        assert_eq!(
            decode(link).expect("the link opens"),
            run,
            "format {}",
            i + 1
        );
    }
}

#[test]
fn links_of_format_2_keep_opening() {
    let mut rng = SplitMix::new(8);
    for i in 0..50 {
        let doc = random_run(&mut rng, 10 + i);
        let v2 = encode_as(&doc, 2).expect("encode v2");
        assert!(v2.starts_with("2."));
        assert_eq!(decode(&v2).expect("v2 decodes"), doc);
    }
}

#[test]
fn accepts_fragment_and_whole_url() {
    let doc = random_run(&mut SplitMix::new(1), 30);
    let link = encode(&doc).expect("encode");
    assert_eq!(decode(&fragment(&link)).expect("fragment"), doc);
    assert_eq!(
        decode(&format!("https://example.org/app/{}", fragment(&link))).expect("url"),
        doc
    );
}

#[test]
fn bad_links_are_refused_with_clear_messages() {
    let doc = random_run(&mut SplitMix::new(2), 40);
    let link = encode(&doc).expect("encode");
    let other = |link: &str| format!("9.{}", link.split_once('.').map_or("", |(_, b)| b));
    assert_eq!(decode(""), Err(ShareError::Empty));
    assert_eq!(decode("#run="), Err(ShareError::Empty));
    assert!(matches!(decode(&other(&link)), Err(ShareError::Version(v)) if v == "9"));
    assert!(decode(&other(&link))
        .unwrap_err()
        .user_message()
        .contains("different version"));
    let truncated = &link[..link.len() / 2];
    let e = decode(truncated).expect_err("truncated");
    assert!(matches!(e, ShareError::Damaged(_)), "{e:?}");
    assert!(e.user_message().contains("copied all of it"));
    assert!(matches!(decode("1.@@@"), Err(ShareError::Damaged(_))));
    assert!(matches!(decode("nodot"), Err(ShareError::Damaged(_))));
    // Valid compression of something that is not a run.
    let not_run = format!(
        "1.{}",
        URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"{\"x\":1}", 6))
    );
    assert!(matches!(decode(&not_run), Err(ShareError::Invalid(_))));
}

#[test]
fn decompression_bombs_and_oversized_links_are_refused() {
    let zeros = vec![b' '; 40 * 1024 * 1024];
    let bomb = format!(
        "1.{}",
        URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&zeros, 10))
    );
    assert!(bomb.len() < 200_000, "a small link that expands to 40 MB");
    let e = decode(&bomb).expect_err("bomb");
    assert!(matches!(e, ShareError::TooLarge(_)), "{e:?}");
    let huge = format!("1.{}", "A".repeat(3 * 1024 * 1024));
    assert!(matches!(decode(&huge), Err(ShareError::TooLarge(_))));
    // Format 5 states its length first: 40 MB is refused before decoding.
    let mut bytes = Vec::new();
    let mut n: u64 = 40 * 1024 * 1024;
    while n >= 0x80 {
        bytes.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
    bytes.extend_from_slice(&[0; 16]);
    let bomb = format!("5.{}", URL_SAFE_NO_PAD.encode(&bytes));
    let e = decode(&bomb).expect_err("format 5 bomb");
    assert!(matches!(e, ShareError::TooLarge(_)), "{e:?}");
}

/// A lesson or comparison link's parts share one cap on their inflated
/// size: parts that fit alone but not together are refused.
#[test]
fn a_bundle_links_parts_share_one_inflated_size_cap() {
    let part = |json: &[u8]| {
        format!(
            "1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json, 6))
        )
    };
    let big = |n: usize| format!("{{\"pad\":\"{}\"}}", " ".repeat(n)).into_bytes();
    let half = roundtable::engine::share::MAX_DECOMPRESSED * 5 / 8;
    let link = format!("#lesson=B1~{}~{}", part(&big(half)), part(&big(half)));
    let e = roundtable::engine::share::bundle::decode(&link).expect_err("too big together");
    assert!(matches!(e, ShareError::TooLarge(_)), "{e:?}");
    // One such part alone is not too big (it is refused as no run instead).
    let link = format!("#lesson=B1~{}~{}", part(b"{}"), part(&big(half)));
    let e = roundtable::engine::share::bundle::decode(&link).expect_err("not a run");
    assert!(!matches!(e, ShareError::TooLarge(_)), "{e:?}");
}

/// What format 5 (LZMA, a dictionary with every coordinator's sample run)
/// buys over formats 3 and 4 (deflate) on a MAEL demo run the dictionary
/// was not made from: a test fails if it stops being much shorter.
#[test]
fn format_5_links_are_shorter_than_deflate_ones() {
    let doc = RunDoc::from_json(include_str!("fixtures/share_v4_v5.run.json")).expect("run");
    let v5 = encode(&doc).expect("encode");
    let deflate = [3, 4]
        .map(|v| encode_as(&doc, v).expect("encode").len())
        .into_iter()
        .min()
        .unwrap_or(0);
    assert!(
        v5.len() * 10 <= deflate * 7,
        "format 5: {} chars, deflate: {deflate}",
        v5.len()
    );
    assert_eq!(decode(&v5).expect("opens"), doc);
}

#[test]
fn decoder_survives_random_and_mutated_inputs() {
    let stats = fuzz::run(20_000, 7);
    assert_eq!(stats.inputs, 20_000);
    assert!(
        stats.rejected > 10_000,
        "most mutations are rejected: {stats:?}"
    );
    assert!(stats.decoded > 0, "some mutations still decode: {stats:?}");
}
