//! An accessory through the existing model renderer, offscreen, with no
//! render change: a `.x` read, converted with `Accessory::to_model`, placed
//! with the set's world matrix, drawn by `MeshTemplate` + `Offscreen`. The
//! expected pixels come from projecting the placed corners on the CPU.
//! Needs a GPU adapter (skipped without one, except under CI=true).
#![cfg(feature = "render")]

mod common;
mod render_support;

use glam::Vec3;
use render_support::*;
use vmd_studio::model::load_textures;
use vmd_studio::model::xfile::Accessory;
use vmd_studio::render::{Light, MeshTemplate, ViewParams};
use vmd_studio::scene::set::AccessoryState;

/// A 1×1 quad (file units) in z = 0 facing −Z, clockwise from the front,
/// red with a red emissive (MMD's ambient), opaque.
const RED_QUAD: &str = "xof 0303txt 0032\n\
Mesh {\n 4;\n -0.5;0;0;,\n -0.5;1;0;,\n 0.5;1;0;,\n 0.5;0;0;;\n 1;\n 4;0,1,2,3;;\n\
 MeshMaterialList { 1; 1; 0;;\n  Material { 1;0;0;1;; 5; 0;0;0;; 1;0;0;; }\n }\n}\n";

#[test]
fn a_placed_accessory_draws_where_its_placement_puts_it() {
    let Some(o) = offscreen() else { return };
    let x = Accessory::read(RED_QUAD.as_bytes()).expect("reads");
    let model = x.to_model("red quad");
    let textures = load_textures(&model, std::path::Path::new("."));
    let mut template = MeshTemplate::new(&model, &textures);
    // Placed 5 units to the right, 5 up, at Si 0.5: the ×10 quad (10 wide)
    // becomes 5 wide, spanning x 2.5..7.5, y 5..10.
    let state = AccessoryState {
        position: Vec3::new(5.0, 5.0, 0.0),
        scale: 0.5,
        ..AccessoryState::default()
    };
    let world = state.pose().world_matrix(None);
    for v in &mut template.mesh.vertices {
        v.position = world.transform_point3(Vec3::from(v.position)).to_array();
    }
    let view = ViewParams::mmd_camera([0.0, 10.0, 0.0], [0.0; 3], -40.0, 30.0, true, 1.0);
    let size = 128;
    let img = picture(o, &[&template.mesh], view, Light::MMD_DEFAULT, size, size);
    let at = |p: Vec3| {
        let (px, py, _) = view.project(p, size, size).expect("in view");
        img.pixel(px as u32, py as u32).expect("inside")
    };
    let centre = at(Vec3::new(5.0, 7.5, 0.0));
    assert!(
        centre[0] > 150 && centre[1] < 60 && centre[2] < 60,
        "centre {centre:?}"
    );
    // Where the unplaced quad would be (around the origin) is background.
    let origin = at(Vec3::new(0.0, 2.5, 0.0));
    assert!(close(origin, BACKGROUND_BYTES, 8), "origin {origin:?}");
    // Just outside the placed quad's right edge: background.
    let right = at(Vec3::new(9.0, 7.5, 0.0));
    assert!(close(right, BACKGROUND_BYTES, 8), "right {right:?}");
}
