//! The native CLI: headless runs (and, as they land, evaluation and share
//! encoding). The browser app is `src/main.rs`.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../cli/mod.rs"]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use cli::args::{parse, Command, USAGE};
    let code = match parse(std::env::args_os().skip(1)) {
        Ok(Command::Help) => {
            println!("{USAGE}\n\n{}", cli::travel::eval::USAGE);
            0
        }
        Ok(Command::Coordinators) => {
            for c in roundtable::engine::coordinators::COORDINATORS {
                println!("{:<10} {} — {}", c.id, c.name, c.description);
            }
            0
        }
        Ok(Command::Share { encode }) => cli::share_cmd::run(encode),
        Ok(Command::LessonQuestions { run, from }) => exit_code(cli::lesson_cmd::list(&run, from)),
        Ok(Command::LessonMake { spec, out }) => exit_code(cli::lesson_cmd::make(&spec, &out)),
        Ok(Command::TravelEval(a)) => match cli::travel::eval::run(a) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        },
        Ok(Command::TravelBatch(a)) => match cli::travel::batch::run(*a) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        },
        Ok(Command::Run(a)) => exit_code(cli::run_cmd::run(*a)),
        Ok(Command::ActBatch(a)) => exit_code(cli::act::batch::run(*a)),
        Ok(Command::MaelLearn(a)) => exit_code(cli::mael::learn::learn(*a)),
        Ok(Command::MaelEval(a)) => exit_code(cli::mael::learn::eval(*a)),
        Ok(Command::Pool(a)) => exit_code(cli::mael::pool::run(*a)),
        Ok(Command::Rouge { cases, json }) => exit_code(cli::rouge_cmd::run(&cases, json)),
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            2
        }
    };
    std::process::exit(code);
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
