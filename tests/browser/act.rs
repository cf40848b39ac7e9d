//! ACT in IndexedDB: knowledge banks (persist, export / import, damaged or newer records) and imported creative task sets.

#[allow(unused_imports)]
use super::*;

/// A bank of `agents` agents, agent i holding i + 1 knowledge entries and
/// one episode about each other agent.
fn act_bank(
    name: &str,
    agents: usize,
    trials: u32,
) -> roundtable::engine::coordinators::act::plus::BankData {
    use roundtable::engine::coordinators::act::contract::{AgentTask, Episode, Knowledge};
    use roundtable::engine::coordinators::act::plus::BankData;
    use roundtable::engine::coordinators::act::team::Agent;
    let mut bank = BankData::empty(name);
    bank.trials = trials;
    for i in 0..agents {
        let id = format!("m{}", i + 1);
        let mut a = Agent::new(
            &id,
            &format!("Member {}", i + 1),
            AgentTask {
                subject: format!("part {i}"),
                details: vec![format!("detail {i}")],
            },
        );
        a.store.expertise = vec![format!("skill{i}"), "design".into()];
        for k in 0..=i {
            a.store.knowledge.push(Knowledge {
                id: format!("{id}-k{k}"),
                owner: id.clone(),
                source: format!("m{}", (i + 1) % agents + 1),
                source_name: String::new(),
                origin: String::new(),
                meeting: k as u32,
                trial: 0,
                summary: format!("Topic {k} is a thing. Agent {i} learnt it."),
                keywords: vec![format!("topic{k}"), "thing".into()],
                importance: (3 + k as u8) % 11,
                order: k as u32,
                flags: vec![],
            });
        }
        for j in (0..agents).filter(|&j| j != i) {
            a.store.episodes.push(Episode {
                id: format!("{id}-e{j}"),
                owner: id.clone(),
                about: format!("m{}", j + 1),
                meeting: 1,
                text: format!("m{} proposed a plan.", j + 1),
                flags: vec![],
            });
        }
        bank.agents.push(a);
    }
    bank
}

/// An ACT+ knowledge bank saved to IndexedDB is listed with its counts,
/// loads back equal, exports as a bank file (holding no API key) that
/// imports back equal under another name, and is gone once deleted.
#[wasm_bindgen_test]
async fn act_banks_persist_export_and_import_in_indexeddb() {
    use roundtable::engine::coordinators::act::plus::BankData;
    use roundtable::platform::act_store::{self, BankMeta};
    let name = "browser-test-act-bank";
    let copy = "browser-test-act-bank-copy";
    let _ = act_store::delete_bank(name).await;
    let _ = act_store::delete_bank(copy).await;
    let bank = act_bank(name, 3, 2);
    act_store::save_bank(name, &bank).await.expect("save");
    let listed = act_store::list_banks().await.expect("list");
    assert!(
        listed.contains(&BankMeta {
            name: name.into(),
            trials: 2,
            agents: 3,
            entries: 1 + 2 + 3,
            episodes: 3 * 2,
        }),
        "{listed:?}"
    );
    assert_eq!(
        act_store::load_bank(name).await.expect("load"),
        Some(bank.clone())
    );
    // Saving again replaces it.
    let mut more = bank.clone();
    more.trials = 3;
    act_store::save_bank(name, &more).await.expect("save again");
    assert_eq!(act_store::load_bank(name).await, Ok(Some(more.clone())));

    keys::set("openai", "sk-act-export-secret", false).expect("set");
    let text = act_store::export_bank(name).await.expect("export");
    keys::forget_all();
    assert!(
        !text.contains("sk-act-export-secret"),
        "no key in an export"
    );
    assert_eq!(BankData::from_json(&text), Ok(more.clone()));
    let meta = act_store::import_bank(copy, &text).await.expect("import");
    assert_eq!(
        meta,
        BankMeta {
            name: copy.into(),
            trials: 3,
            agents: 3,
            entries: 6,
            episodes: 6,
        }
    );
    let back = act_store::load_bank(copy)
        .await
        .expect("load copy")
        .expect("stored");
    assert_eq!(back.name, copy, "the imported bank takes its new name");
    assert_eq!(
        BankData {
            name: name.into(),
            ..back
        },
        more
    );

    act_store::delete_bank(name).await.expect("delete");
    act_store::delete_bank(copy).await.expect("delete copy");
    let listed = act_store::list_banks().await.expect("list");
    assert!(!listed.iter().any(|m| m.name == name || m.name == copy));
    assert_eq!(act_store::load_bank(name).await, Ok(None));
    let err = act_store::export_bank(name).await.expect_err("gone");
    assert!(
        err.contains("no knowledge bank") && err.contains(name),
        "{err}"
    );
}

/// A damaged stored bank, or one a newer version wrote, is an error that
/// names it and says what to do; the list leaves it out.
#[wasm_bindgen_test]
async fn damaged_or_newer_act_banks_are_clear_errors() {
    use roundtable::platform::{act_store, idb};
    let good = act_bank("x", 2, 1);
    let mut bad_owner = good.clone();
    bad_owner.agents[1].store.knowledge[0].owner = "m1".into();
    let mut newer_bank = serde_json::to_value(&good).expect("bank");
    newer_bank["version"] = 2.into();
    let record = |v: u32, bank: serde_json::Value| {
        serde_json::json!({"v": v, "name": "n", "bank": bank}).to_string()
    };
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "browser-test-act-not-json",
            "{not json".into(),
            &["damaged", "delete it"],
        ),
        (
            "browser-test-act-no-version",
            "{\"name\": \"n\"}".into(),
            &["damaged", "delete it"],
        ),
        (
            "browser-test-act-no-bank",
            "{\"v\": 1, \"name\": \"n\"}".into(),
            &["damaged", "holds no bank"],
        ),
        (
            "browser-test-act-bad-owner",
            record(1, serde_json::to_value(&bad_owner).expect("bank")),
            &["damaged", "owner", "delete it"],
        ),
        (
            "browser-test-act-newer-record",
            record(2, serde_json::to_value(&good).expect("bank")),
            &["newer version", "record version 2", "update Roundtable"],
        ),
        (
            "browser-test-act-newer-bank",
            record(1, newer_bank),
            &["newer version", "bank version 2", "update Roundtable"],
        ),
    ];
    for (name, text, want) in &cases {
        idb::put_text("act_banks", name, text).await.expect("put");
        let err = act_store::load_bank(name).await.expect_err(name);
        assert!(err.contains(name), "{err}");
        for w in *want {
            assert!(err.contains(w), "{name}: {err} should say {w}");
        }
        assert_eq!(act_store::export_bank(name).await, Err(err));
    }
    let listed = act_store::list_banks().await.expect("list still reads");
    assert!(
        !listed.iter().any(|m| cases.iter().any(|c| c.0 == m.name)),
        "{listed:?}"
    );
    for (name, _, _) in &cases {
        act_store::delete_bank(name).await.expect("delete");
    }
}

/// A file that is not a knowledge bank is refused on import, and nothing
/// is stored.
#[wasm_bindgen_test]
async fn importing_a_non_bank_file_stores_nothing() {
    use roundtable::platform::act_store;
    let name = "browser-test-act-refused";
    let _ = act_store::delete_bank(name).await;
    let pool = r#"{"format":"roundtable.experience-pool","version":1,"embedder":{"id":"lexical-v1","dims":384},"experiences":[]}"#;
    let err = act_store::import_bank(name, pool)
        .await
        .expect_err("a pool is not a bank");
    assert!(err.contains("not an ACT knowledge bank"), "{err}");
    let err = act_store::import_bank(name, "subject,details\n")
        .await
        .expect_err("not JSON");
    assert!(err.contains("not JSON"), "{err}");
    let mut future = serde_json::to_value(act_bank(name, 1, 0)).expect("bank");
    future["version"] = 7.into();
    let err = act_store::import_bank(name, &future.to_string())
        .await
        .expect_err("newer bank");
    assert!(err.contains("version"), "{err}");
    assert_eq!(act_store::load_bank(name).await, Ok(None), "nothing stored");
    assert!(!act_store::list_banks()
        .await
        .expect("list")
        .iter()
        .any(|m| m.name == name));
}

/// Creative task sets are checked before they are kept (a bad line is
/// refused, naming it, and nothing is stored); community items and a
/// Trivia Creative Writing file read back as they were; delete removes
/// them.
#[wasm_bindgen_test]
async fn act_task_sets_are_checked_before_they_are_kept() {
    use roundtable::engine::domains::creative::{parse_items, trial, trivia, CreativeSet};
    use roundtable::platform::act_store::{self, ActSet, SetKind};
    let items_name = "browser-test-act-items.jsonl";
    let trivia_name = "browser-test-act-trivia.jsonl";
    let _ = act_store::delete_set(items_name).await;
    let _ = act_store::delete_set(trivia_name).await;
    let before = act_store::list_sets().await;

    let good_items = "{\"subject\": \"A garden app\", \"details\": [\"for renters\"], \"solutions\": [\"Shared plots booked by the hour.\"]}\n\n{\"subject\": \"A bike repair kit\", \"solutions\": [\"A folding stand.\"]}\n{\"community\": \"c\", \"subject\": \"A library of tools\", \"details\": [], \"solutions\": [\"Lend drills.\", \"Lend ladders.\"]}\n";
    let bad_items = format!("{good_items}{{\"subject\": \"no solutions\"}}\n");
    let err = act_store::save_set(items_name, SetKind::Items, &bad_items)
        .await
        .expect_err("refused");
    assert!(err.contains("line 5") && err.contains(items_name), "{err}");
    let row = r#"{"topic": "Mario", "questions": ["Who wrote Exile?", "In which year?"], "answers": [["Taylor Swift", "Swift"], ["1912"]]}"#;
    let bad_trivia = format!("{row}\n{{\"topic\": \"x\", \"questions\": [\"q\"]}}\n");
    let err = act_store::save_set(trivia_name, SetKind::Trivia, &bad_trivia)
        .await
        .expect_err("refused");
    assert!(err.contains("line 2") && err.contains(trivia_name), "{err}");
    // Items are not trivia rows.
    let err = act_store::save_set(trivia_name, SetKind::Trivia, good_items)
        .await
        .expect_err("refused");
    assert!(err.contains("line 1"), "{err}");
    assert_eq!(act_store::list_sets().await, before, "nothing stored");
    assert!(act_store::load_set(items_name).await.is_err());

    assert_eq!(
        act_store::save_set(items_name, SetKind::Items, good_items).await,
        Ok(3)
    );
    let trivia_text = format!("{row}\n{}\n", row.replace("Mario", "Luigi"));
    assert_eq!(
        act_store::save_set(trivia_name, SetKind::Trivia, &trivia_text).await,
        Ok(2)
    );
    let listed = act_store::list_sets().await;
    assert!(listed.contains(&(items_name.to_string(), SetKind::Items)));
    assert!(listed.contains(&(trivia_name.to_string(), SetKind::Trivia)));

    let items = act_store::load_set(items_name).await.expect("load items");
    assert_eq!(items.kind(), SetKind::Items);
    let want = parse_items(good_items, items_name).expect("parse");
    assert_eq!(items, ActSet::Items(want.clone()));
    let ActSet::Items(items) = items else {
        unreachable!()
    };
    assert_eq!(
        trial(&items, CreativeSet::Imported, 1, 2),
        trial(&want, CreativeSet::Imported, 1, 2)
    );
    let tasks = act_store::load_set(trivia_name).await.expect("load trivia");
    assert_eq!(
        tasks,
        ActSet::Trivia(trivia::parse(&trivia_text, trivia_name).expect("parse"))
    );
    assert_eq!(tasks.len(), 2);
    let ActSet::Trivia(tasks) = tasks else {
        unreachable!()
    };
    assert_eq!(tasks[1].parts.len(), 2);
    assert!(tasks[1].text.contains("Luigi"));

    // AgentVerse's tool tasks: checked (a line without its question is
    // named), kept, read back with their teams and their need of the web.
    let tools_name = "browser-test-act-tools.jsonl";
    let _ = act_store::delete_set(tools_name).await;
    let err = act_store::save_set(tools_name, SetKind::Tools, "{\"id\": \"bmi\"}\n")
        .await
        .expect_err("refused");
    assert!(err.contains("line 1") && err.contains("\"task\""), "{err}");
    assert!(
        act_store::load_set(tools_name).await.is_err(),
        "nothing stored"
    );
    let tool_text = "{\"id\": \"bmi\", \"task\": \"Calculate my BMI.\", \"agents\": 3}\n{\"id\": \"car\", \"task\": \"Compare cars.\"}\n";
    assert_eq!(
        act_store::save_set(tools_name, SetKind::Tools, tool_text).await,
        Ok(2)
    );
    assert!(act_store::list_sets()
        .await
        .contains(&(tools_name.to_string(), SetKind::Tools)));
    let ActSet::Tools(tools) = act_store::load_set(tools_name).await.expect("load tools") else {
        panic!("not read back as tool tasks")
    };
    assert_eq!(
        tools
            .iter()
            .map(|t| (t.id.as_str(), t.agents, t.needs_web))
            .collect::<Vec<_>>(),
        [("bmi", 3, false), ("car", 4, true)]
    );
    act_store::delete_set(tools_name).await.expect("delete");

    // A set stored by a newer version.
    let newer = "browser-test-act-newer-set";
    roundtable::platform::idb::put_text(
        "act_task_sets",
        newer,
        r#"{"v": 2, "name": "n", "kind": "poems", "jsonl": ""}"#,
    )
    .await
    .expect("put");
    let err = act_store::load_set(newer).await.expect_err("newer");
    assert!(
        err.contains(newer) && err.contains("newer version"),
        "{err}"
    );
    assert!(!act_store::list_sets().await.iter().any(|(n, _)| n == newer));
    act_store::delete_set(newer).await.expect("delete");

    act_store::delete_set(items_name).await.expect("delete");
    act_store::delete_set(trivia_name).await.expect("delete");
    assert_eq!(act_store::list_sets().await, before);
    let err = act_store::load_set(items_name).await.expect_err("gone");
    assert!(err.contains("not in this browser"), "{err}");
}
