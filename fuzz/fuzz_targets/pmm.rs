//! Any input: the PMM reader must not panic, hang or over-allocate; a
//! project that reads must follow its links, convert to VMD motions our
//! writer saves, and those must read back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmd_studio::project::{self, ModelShape};
use vmd_studio::vmd;

fuzz_target!(|data: &[u8]| {
    // v1 projects get a small fixed shape so their keys are read too.
    let mut shape = |_: usize, _: &project::document::PmmText| {
        Some(ModelShape {
            bone_names: vec![b"a".to_vec(), b"b".to_vec()],
            morph_names: vec![b"m".to_vec()],
            ik_bones: vec![1],
        })
    };
    let Ok(p) = project::read_with(data, &mut shape) else { return };
    for (i, m) in p.models.iter().enumerate() {
        let mm = project::model_motion(m, i);
        let bytes = vmd::write(&mm.motion).expect("write");
        assert_eq!(vmd::read(&bytes).expect("read back"), mm.motion);
    }
    let cm = project::camera_motion(&p);
    let bytes = vmd::write(&cm.motion).expect("write");
    assert_eq!(vmd::read(&bytes).expect("read back"), cm.motion);
});
