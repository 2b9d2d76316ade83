//! The physics world from hostile models (issue 21, item 5): the decoding
//! and the invariants live in `tests/physics_models/fuzz_input.rs`, shared
//! with the regression tests (`tests/physics_fuzz.rs`) and the mutation
//! loop (`examples/physics_fuzz_loop.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/physics_models/fuzz_input.rs"]
mod fuzz_input;

fuzz_target!(|data: &[u8]| fuzz_input::run(data));
