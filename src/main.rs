//! The browser app entry point (built by Trunk for wasm32).

#[cfg(target_arch = "wasm32")]
fn main() {
    roundtable::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The Roundtable app runs in the browser: `make run`, then open http://127.0.0.1:8080. For headless runs use the `roundtable` CLI.");
}
