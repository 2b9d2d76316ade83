//! Any input behind a PMD signature: `Model::read` must not panic,
//! hang or over-allocate; whatever reads must also pose (append, IK,
//! morphs, skinning) at rest and with every morph on, without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmd_studio::model::{Model, Posed, Poser};

/// The fuzzer supplies what follows the signature.
const SIGNATURE: &[u8] = b"Pmd";

fuzz_target!(|data: &[u8]| {
    let mut bytes = Vec::with_capacity(data.len() + 4);
    bytes.extend_from_slice(SIGNATURE);
    bytes.extend_from_slice(data);
    let Ok(model) = Model::read(&bytes) else { return };
    let mut poser = Poser::new(&model);
    let mut posed = Posed::default();
    poser.evaluate(&model, &mut posed);
    for w in poser.input_mut().morphs.iter_mut() {
        *w = 1.0;
    }
    for t in poser.input_mut().translations.iter_mut() {
        t.x = 0.5;
        t.y = -1.0;
        t.z = 2.0;
    }
    poser.evaluate(&model, &mut posed);
});
