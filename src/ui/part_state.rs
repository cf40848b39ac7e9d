//! State that a lazily loaded part keeps while the page lives: a
//! coordinator's setup (the chosen query), a batch in progress. It is made
//! the first time the part asks for it, under the app's root owner, so it
//! outlives the component that asked (leaving the Run page for History
//! keeps the chosen query; a batch goes on while one of its runs is shown)
//! and the core module never holds a coordinator's state.

use leptos::prelude::*;
use std::any::Any;
use std::cell::RefCell;

thread_local! {
    static ROOT: RefCell<Option<Owner>> = const { RefCell::new(None) };
    static STATES: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Makes the current owner (the app's) the owner of every part's state.
pub fn set_root() {
    ROOT.with(|r| *r.borrow_mut() = Owner::current());
}

/// The part's state of type `T` (signals, so `Copy`), made with `make` the
/// first time.
pub fn part_state<T: Copy + 'static>(make: fn() -> T) -> T {
    if let Some(t) = STATES.with(|s| {
        s.borrow()
            .iter()
            .find_map(|b| b.downcast_ref::<T>().copied())
    }) {
        return t;
    }
    let made = match ROOT.with(|r| r.borrow().clone()) {
        Some(owner) => owner.with(make),
        None => make(),
    };
    STATES.with(|s| s.borrow_mut().push(Box::new(made)));
    made
}
