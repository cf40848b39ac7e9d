//! The native CLI: headless runs (and, as they land, evaluation and share
//! encoding). The browser app is `src/main.rs`.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../cli/mod.rs"]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use cli::args::{parse, usage, Command};
    let code = match parse(std::env::args_os().skip(1)) {
        Ok(Command::Help) => {
            println!("{}", usage());
            0
        }
        Ok(Command::Coordinators) => {
            for c in roundtable::engine::coordinators::COORDINATORS {
                println!("{:<10} {} — {}", c.id, c.name, c.description);
            }
            0
        }
        Ok(Command::Shapes { largest, grammar }) => {
            let shapes = roundtable::engine::coordinators::every_shape();
            if grammar {
                print!(
                    "{}",
                    roundtable::engine::coordinators::text_tool_grammar().lark()
                );
            } else if largest {
                let big = shapes
                    .iter()
                    .map(|s| s.decoding_form())
                    .max_by_key(|s| s.to_string().len());
                println!("{}", big.unwrap_or_default());
            } else {
                for s in &shapes {
                    let mut line = serde_json::json!({"step": s.name, "schema": s.strict()});
                    if s.agreeing.is_some() {
                        line["held"] = s.decoding_form();
                    }
                    println!("{line}");
                }
            }
            0
        }
        Ok(Command::Prompts { coordinator }) => exit_code(prompts(&coordinator)),
        Ok(Command::Share { encode }) => cli::share_cmd::run(encode),
        Ok(Command::LessonQuestions { run, from }) => exit_code(cli::lesson_cmd::list(&run, from)),
        Ok(Command::LessonMake { spec, out }) => exit_code(cli::lesson_cmd::make(&spec, &out)),
        Ok(Command::Run(args)) => exit_code(cli::run_cmd::run(args)),
        Ok(Command::Serve(args)) => exit_code(cli::serve::run(args)),
        Ok(Command::Paper(c, args)) => exit_code((c.run)(args)),
        Ok(Command::Rouge { cases, json }) => exit_code(cli::rouge_cmd::run(&cases, json)),
        Err(e) => {
            eprintln!("error: {e}\n\n{}", usage());
            2
        }
    };
    std::process::exit(code);
}

/// `roundtable prompts --coordinator ID`: its default templates as a
/// prompt file, headed by what each is for and may use.
#[cfg(not(target_arch = "wasm32"))]
fn prompts(id: &str) -> Result<i32, String> {
    use roundtable::engine::coordinators::{info, prompt_templates};
    use roundtable::engine::prompts::{file_of, Prompts};
    let (defaults, specs) = prompt_templates(id).ok_or_else(|| {
        let known: Vec<&str> = roundtable::engine::coordinators::COORDINATORS
            .iter()
            .map(|c| c.id)
            .collect();
        format!("unknown coordinator \"{id}\"; known: {}", known.join(", "))
    })?;
    let p = Prompts::new(defaults, specs, &Default::default()).map_err(|e| e.to_string())?;
    let name = info(id).map_or(id, |c| c.name);
    print!(
        "{}",
        file_of(
            &p,
            &format!("The prompts of {name} (roundtable prompts --coordinator {id}).")
        )
    );
    Ok(0)
}

/// A command's exit code; an error is printed.
#[cfg(not(target_arch = "wasm32"))]
fn exit_code(r: Result<i32, String>) -> i32 {
    r.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        2
    })
}

#[cfg(target_arch = "wasm32")]
fn main() {}
