//! Any input behind a text `.x` header: `Accessory::read` must not panic,
//! hang or over-allocate; whatever reads must keep its invariants and
//! convert to a model that keeps the model's (every index a vertex, the
//! materials' runs adding up, every number finite).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vmd_studio::model::xfile::Accessory;

/// The fuzzer supplies what follows the header.
const HEADER: &[u8] = b"xof 0303txt 0032\n";

fuzz_target!(|data: &[u8]| {
    let mut bytes = Vec::with_capacity(data.len() + HEADER.len());
    bytes.extend_from_slice(HEADER);
    bytes.extend_from_slice(data);
    let Ok(a) = Accessory::read(&bytes) else { return };
    let n = a.vertex_count();
    assert_eq!(a.normals.len(), n);
    assert_eq!(a.uvs.len(), n);
    assert_eq!(a.colours.len(), n);
    assert_eq!(a.indices.len() % 3, 0);
    assert!(a.indices.iter().all(|&i| (i as usize) < n));
    let runs: usize = a.materials.iter().map(|m| m.index_count).sum();
    assert_eq!(runs, a.indices.len());
    assert!(a.positions.iter().all(|p| p.is_finite()));
    assert!(a.normals.iter().all(|p| p.is_finite()));
    let m = a.to_model("fuzz");
    assert!(m.positions.iter().all(|p| p.is_finite()));
    assert_eq!(m.deforms.len(), n);
    for mat in &m.materials {
        assert!(mat.texture.is_none_or(|t| t < m.textures.len()));
        assert!(mat.sphere.is_none_or(|t| t < m.textures.len()));
    }
});
