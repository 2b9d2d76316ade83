//! Every input that reads must write back byte-identically, and the model
//! must survive a second round trip unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmd_studio::vmd;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = vmd::read(data) else { return };
    let out = match vmd::write(&m) {
        Ok(out) => out,
        Err(e) => panic!("a motion that was read cannot be written: {e}"),
    };
    assert!(out == data, "read → write changed the bytes");
    match vmd::read(&out) {
        Ok(again) => assert!(again == m, "second read differs"),
        Err(e) => panic!("written bytes do not read back: {e}"),
    }
});
