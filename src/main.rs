//! The browser app entry point (wasm32, with the `app` feature; built by
//! scripts/build-wasm.sh, which Trunk runs).

#[cfg(all(target_arch = "wasm32", feature = "app"))]
fn main() {
    roundtable::ui::start();
}

#[cfg(not(all(target_arch = "wasm32", feature = "app")))]
fn main() {
    eprintln!("The Roundtable app runs in the browser: `make run`, then open http://127.0.0.1:8080. For headless runs use the `roundtable` CLI.");
}
