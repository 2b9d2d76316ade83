//! The DirectX text `.x` reader against hand-written expectations: the
//! corpus accessories (counts read off the files by hand), MMD's ×10 scale,
//! the `tex*sphere` split, referenced materials, both UV spellings, frames,
//! and the bad inputs (inline texts, each a few lines).

mod common;

use glam::{Vec2, Vec3, Vec4};
use vmd_studio::model::SphereMode;
use vmd_studio::model::xfile::{Accessory, MMD_SCALE, XError};

fn frontier(rel: &str) -> Option<Vec<u8>> {
    let dir = common::corpus()?;
    let p = dir.join("frontier").join(rel);
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

fn read(text: &str) -> Accessory {
    Accessory::read(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn read_err(text: &str) -> XError {
    match Accessory::read(text.as_bytes()) {
        Ok(a) => panic!("expected an error, read {a:?}"),
        Err(e) => e,
    }
}

fn warnings(a: &Accessory) -> String {
    a.warnings
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

const HEADER: &str = "xof 0303txt 0032\n";

// ---- the corpus files -------------------------------------------------------

#[test]
fn nanoem_test_accessory_referenced_material_and_comma_uvs() {
    let Some(bytes) = frontier("x_nanoem_test_dummy/test.x") else {
        return;
    };
    let a = Accessory::read(&bytes).expect("test.x reads");
    // 4 vertices, faces `3;0,1,2,` and `3;1,0,3;;`, one material
    // referenced as `{ __Color_A01_ }`, texture coords written `u,v;`.
    assert_eq!(a.vertex_count(), 4);
    assert_eq!(a.triangle_count(), 2);
    assert_eq!(a.indices, vec![0, 1, 2, 1, 0, 3]);
    assert_eq!(a.materials.len(), 1);
    let m = &a.materials[0];
    assert_eq!(m.name, "__Color_A01_");
    assert_eq!(m.face_colour, Vec4::new(0.0, 0.0, 0.0, 1.0));
    assert_eq!(m.power, 5.0);
    assert_eq!(m.index_count, 6);
    assert_eq!(a.uvs, vec![Vec2::ZERO; 4]);
    // One normal (0, 1, 0) used by every corner.
    for n in &a.normals {
        assert!((*n - Vec3::Y).length() < 1e-6, "{n}");
    }
    assert!(a.warnings.is_empty(), "{}", warnings(&a));
    assert_eq!(a.version, "0303txt");
}

#[test]
fn raymmd_controller_see_through_material_draws_both_faces() {
    let Some(bytes) = frontier("x_raymmd_controller/ray.x") else {
        return;
    };
    let a = Accessory::read(&bytes).expect("ray.x reads");
    assert_eq!(
        (a.vertex_count(), a.triangle_count(), a.materials.len()),
        (3, 1, 1)
    );
    assert_eq!(a.materials[0].face_colour.w, 0.0);
    let model = a.to_model("ray");
    assert!(
        model.materials[0].flags.double_sided,
        "alpha 0 < 1: no culling"
    );
    assert!(a.warnings.is_empty(), "{}", warnings(&a));
}

#[test]
fn raymmd_dummy_screen_templates_skipped_screen_bmp_is_a_plain_material() {
    let Some(bytes) = frontier("x_raymmd_dummyscreen/DummyScreen.x") else {
        return;
    };
    let a = Accessory::read(&bytes).expect("DummyScreen.x reads");
    assert_eq!((a.vertex_count(), a.triangle_count()), (4, 2));
    assert_eq!(a.positions[0], Vec3::new(-0.5, 0.5, 0.0));
    assert_eq!(a.positions[2], Vec3::new(0.5, 0.0, 0.0));
    // `u;v;,` spelling.
    assert_eq!(
        a.uvs,
        vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0)
        ]
    );
    assert_eq!(a.normals[1], Vec3::new(0.0, 0.0, -1.0));
    let m = &a.materials[0];
    assert!(m.screen);
    assert_eq!(m.texture, None);
    assert_eq!(m.texture_filename.as_deref(), Some("screen.bmp"));
    assert_eq!(m.emissive, Vec3::ONE);
    assert!(warnings(&a).contains("screen.bmp"), "{}", warnings(&a));
    // ×10 into MMD units; emissive is the ambient colour; no texture.
    let model = a.to_model("screen");
    assert_eq!(model.positions[0], Vec3::new(-5.0, 5.0, 0.0));
    assert_eq!(model.positions[2], Vec3::new(5.0, 0.0, 0.0));
    assert_eq!(model.materials[0].ambient, Vec3::ONE);
    assert_eq!(model.materials[0].texture, None);
    assert!(model.textures.is_empty());
    assert!(
        !model.materials[0].flags.double_sided,
        "opaque: back faces culled"
    );
}

#[test]
fn assimp_text_cube_frames_apply_and_skinning_blocks_are_skipped() {
    let Some(bytes) = frontier("x_negative_binary_assimp/test_cube_text.x") else {
        return;
    };
    let a = Accessory::read(&bytes).expect("test_cube_text.x reads");
    assert_eq!(
        (a.vertex_count(), a.triangle_count(), a.materials.len()),
        (24, 12, 1)
    );
    let m = &a.materials[0];
    assert_eq!(m.name, "Material");
    assert!((m.power - 96.078_43).abs() < 1e-4);
    assert!((m.face_colour.x - 0.639_216).abs() < 1e-6);
    // The Root frame's matrix (rows 1 0 0 0 / 0 0 1 0 / 0 1 0 0 / 0 0 0 1)
    // swaps y and z: vertex 0 (-1, -1, 1) lands at (-1, 1, -1) and its
    // normal (0, -1, 0) at (0, 0, -1).
    assert_eq!(a.positions[0], Vec3::new(-1.0, 1.0, -1.0));
    assert_eq!(a.positions[1], Vec3::new(1.0, -1.0, -1.0));
    assert!((a.normals[0] - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
    assert!(a.warnings.is_empty(), "{}", warnings(&a));
}

#[test]
fn binary_and_compressed_files_are_refused_naming_the_format() {
    for (file, named) in [
        ("x_negative_binary_assimp/test_cube_binary.x", "0303bin"),
        ("x_negative_binary_assimp/fromtruespace_bin32.x", "0302bin"),
        (
            "x_negative_binary_assimp/test_cube_compressed.x",
            "0303bzip",
        ),
    ] {
        let Some(bytes) = frontier(file) else { return };
        let e = Accessory::read(&bytes).unwrap_err();
        assert!(matches!(e, XError::Unsupported { .. }), "{file}: {e}");
        let text = e.to_string();
        assert!(text.contains(named), "{file}: {text}");
    }
    let e = Accessory::read(b"xof 0303tzip0032....").unwrap_err();
    assert!(e.to_string().contains("compressed text"), "{e}");
    let e = Accessory::read(b"PMX \x00").unwrap_err();
    assert!(matches!(e, XError::NotX { .. }), "{e}");
    assert!(Accessory::read(b"").is_err());
    assert!(Accessory::read(b"xof ").is_err());
}

// ---- MMD's rules on small texts ----------------------------------------------

/// One triangle (0,0,0) (0,1,0) (1,0,0) with a material list of `materials`.
fn triangle_with(materials: &str) -> String {
    format!(
        "{HEADER}Mesh {{\n3;\n0;0;0;,\n0;1;0;,\n1;0;0;;\n1;\n3;0,1,2;;\n\
         MeshMaterialList {{\n1;\n1;\n0;;\n{materials}\n}}\n}}\n"
    )
}

#[test]
fn texture_names_split_at_the_star_into_texture_and_sphere() {
    let case = |name: &str| {
        let a = read(&triangle_with(&format!(
            "Material {{ 1;1;1;1;; 5; 0;0;0;; 0;0;0;; TextureFilename {{ \"{name}\"; }} }}"
        )));
        let m = a.materials[0].clone();
        (m.texture, m.sphere, m.sphere_mode)
    };
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        case("tex\\a.png*env.sph"),
        (s("tex\\a.png"), s("env.sph"), SphereMode::Multiply)
    );
    assert_eq!(
        case("a.bmp*light.SPA"),
        (s("a.bmp"), s("light.SPA"), SphereMode::Add)
    );
    assert_eq!(
        case("only.sph"),
        (None, s("only.sph"), SphereMode::Multiply)
    );
    assert_eq!(case("only.spa"), (None, s("only.spa"), SphereMode::Add));
    assert_eq!(case("plain.png"), (s("plain.png"), None, SphereMode::None));
    // A second name that is no sphere map is not drawn.
    assert_eq!(case("a.png*b.png"), (s("a.png"), None, SphereMode::None));
    // The model gets each texture once, indices into its list.
    let a = read(&triangle_with(
        "Material { 1;1;1;1;; 5; 0;0;0;; 0;0;0;; TextureFilename { \"a.png*e.sph\"; } }",
    ));
    let m = a.to_model("t");
    assert_eq!(m.textures, vec!["a.png".to_owned(), "e.sph".to_owned()]);
    assert_eq!(m.materials[0].texture, Some(0));
    assert_eq!(m.materials[0].sphere, Some(1));
    assert_eq!(m.materials[0].sphere_mode, SphereMode::Multiply);
}

#[test]
fn shift_jis_texture_names_decode() {
    // テクスチャ.png in Shift_JIS.
    let mut bytes =
        triangle_with("Material { 1;1;1;1;; 5; 0;0;0;; 0;0;0;; TextureFilename { \"@\"; } }")
            .into_bytes();
    let at = bytes.iter().position(|&b| b == b'@').expect("marker");
    bytes.splice(
        at..=at,
        b"\x83\x65\x83\x4E\x83\x58\x83\x60\x83\x83.png"
            .iter()
            .copied(),
    );
    let a = Accessory::read(&bytes).expect("reads");
    assert_eq!(a.materials[0].texture.as_deref(), Some("テクスチャ.png"));
}

#[test]
fn polygons_split_into_fans_grouped_by_material() {
    // A quad (material 1), a triangle (material 0), a pentagon (material 1).
    let a = read(&format!(
        "{HEADER}Mesh {{ 5; 0;0;0;, 1;0;0;, 1;1;0;, 0;1;0;, 0;2;0;;\n\
         3;\n4;0,1,2,3;,\n3;0,1,2;,\n5;0,1,2,3,4;;\n\
         MeshMaterialList {{ 2; 3; 1, 0, 1;;\n\
         Material {{ 1;0;0;1;; 1; 0;0;0;; 0;0;0;; }}\n\
         Material {{ 0;1;0;1;; 1; 0;0;0;; 0;0;0;; }} }} }}"
    ));
    assert_eq!(a.polygon_count, 3);
    assert_eq!(a.triangle_count(), 2 + 1 + 3);
    assert_eq!(a.materials[0].index_count, 3);
    assert_eq!(a.materials[1].index_count, 15);
    assert_eq!(
        a.indices,
        vec![
            0, 1, 2, /* material 1: */ 0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3, 0, 3, 4
        ]
    );
}

#[test]
fn crlf_lf_and_cr_read_the_same() {
    let lf = triangle_with("Material { 1;1;1;1;; 5; 0;0;0;; 0;0;0;; }");
    let a = read(&lf);
    assert_eq!(read(&lf.replace('\n', "\r\n")), a);
    assert_eq!(read(&lf.replace('\n', "\r")), a);
}

#[test]
fn nested_frames_compose_child_then_parent() {
    // Frame A translates by (1, 2, 3); inside it Frame B scales by 2; the
    // vertex (1, 0, 0) ends at 2·(1,0,0) + (1,2,3) = (3, 2, 3).
    let a = read(&format!(
        "{HEADER}Frame A {{\n FrameTransformMatrix {{ 1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1;; }}\n\
         Frame B {{ FrameTransformMatrix {{ 2,0,0,0, 0,2,0,0, 0,0,2,0, 0,0,0,1;; }}\n\
         Mesh {{ 3; 1;0;0;, 1;1;0;, 2;0;0;; 1; 3;0,1,2;; }} }} }}"
    ));
    assert_eq!(a.positions[0], Vec3::new(3.0, 2.0, 3.0));
    assert_eq!(
        a.to_model("f").positions[0],
        Vec3::new(3.0, 2.0, 3.0) * MMD_SCALE
    );
}

#[test]
fn two_meshes_merge_with_their_own_materials() {
    let mesh = |x: f32, c: &str| {
        format!(
            "Mesh {{ 3; {x};0;0;, {x};1;0;, {x};0;1;; 1; 3;0,1,2;; \
             MeshMaterialList {{ 1; 1; 0;; Material {{ {c};1;; 1; 0;0;0;; 0;0;0;; }} }} }}"
        )
    };
    let a = read(&format!(
        "{HEADER}{}\n{}",
        mesh(0.0, "1;0;0"),
        mesh(5.0, "0;0;1")
    ));
    assert_eq!(a.mesh_count, 2);
    assert_eq!(a.vertex_count(), 6);
    assert_eq!(a.indices, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(a.materials[1].face_colour, Vec4::new(0.0, 0.0, 1.0, 1.0));
    assert_eq!(a.positions[3].x, 5.0);
}

#[test]
fn normals_are_computed_when_the_file_has_none() {
    let a = read(&format!(
        "{HEADER}Mesh {{ 3; 0;0;0;, 0;1;0;, 1;0;0;; 1; 3;0,1,2;; }}"
    ));
    // Clockwise seen from −Z (DirectX/MMD front face): the normal is −Z.
    assert_eq!(a.normals, vec![Vec3::new(0.0, 0.0, -1.0); 3]);
    // No material list: nanodxm's white default.
    assert_eq!(a.materials.len(), 1);
    assert_eq!(a.materials[0].face_colour, Vec4::ONE);
}

#[test]
fn vertex_colours_apply_by_index() {
    let a = read(&format!(
        "{HEADER}Mesh {{ 3; 0;0;0;, 0;1;0;, 1;0;0;; 1; 3;0,1,2;;\n\
         MeshVertexColors {{ 2; 2; 1;0;0;0.5;, 7; 0;1;0;1;; }} }}"
    ));
    assert!(a.has_vertex_colours);
    assert_eq!(a.colours[2], Vec4::new(1.0, 0.0, 0.0, 0.5));
    assert_eq!(a.colours[0], Vec4::ONE);
    let w = warnings(&a);
    assert!(w.contains("vertex 7 of 3") && w.contains("line 3"), "{w}");
}

#[test]
fn the_converted_model_keeps_the_model_invariants() {
    let a = read(&triangle_with(
        "Material { 0.5;0.25;1;0.98;; 20; 0.1;0.2;0.3;; 0.4;0.5;0.6;; }",
    ));
    let m = a.to_model("acc");
    assert_eq!(m.name, "acc");
    assert_eq!(m.skeleton.bones.len(), 1);
    assert_eq!(m.deforms.len(), 3);
    assert_eq!(m.normals.len(), 3);
    assert_eq!(m.uvs.len(), 3);
    assert_eq!(m.edge_scale, vec![0.0; 3]);
    let total: usize = m.materials.iter().map(|x| x.index_count).sum();
    assert_eq!(total, m.indices.len());
    let mat = &m.materials[0];
    assert_eq!(mat.diffuse, Vec4::new(0.5, 0.25, 1.0, 0.98));
    assert_eq!(mat.specular_power, 20.0);
    assert_eq!(mat.specular, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!(
        mat.ambient,
        Vec3::new(0.4, 0.5, 0.6),
        "emissive is the ambient"
    );
    assert!(!mat.flags.edge);
    assert_eq!(mat.toon, vmd_studio::model::Toon::None);
    assert!(
        !mat.flags.self_shadow_map,
        "alpha 0.98 casts no self-shadow"
    );
    assert!(mat.flags.double_sided, "alpha 0.98 < 1");
}

// ---- bad input ------------------------------------------------------------------

#[test]
fn a_vertex_count_larger_than_the_data_is_an_error_with_the_line() {
    let e = read_err(&format!(
        "{HEADER}Mesh {{\n8;\n0;0;0;,\n0;1;0;,\n1;0;0;;\n1;\n3;0,1,2;;\n}}\n"
    ));
    let XError::Syntax { line, what } = &e else {
        panic!("{e}")
    };
    // Vertex 3 reads `1` `3` `0` from the face lines, vertex 4 reads `1`
    // `2`, then meets the `}` on line 9 where a number is expected.
    assert_eq!(*line, 9, "{e}");
    assert!(what.contains("of 8") && what.contains("`}`"), "{e}");
}

#[test]
fn a_two_gigabyte_count_fails_fast_without_allocating_it() {
    let t = std::time::Instant::now();
    for count in ["2147483648", "4294967295"] {
        let e = read_err(&format!("{HEADER}Mesh {{\n{count};\n0;0;0;;\n}}\n"));
        assert!(matches!(e, XError::Syntax { line: 5, .. }), "{e}");
        let e = read_err(&format!(
            "{HEADER}Mesh {{ 3; 0;0;0;, 0;1;0;, 1;0;0;;\n{count};\n3;0,1,2;;\n}}\n"
        ));
        assert!(matches!(e, XError::Syntax { .. }), "{e}");
        let e = read_err(&format!(
            "{HEADER}Mesh {{ 3; 0;0;0;, 0;1;0;, 1;0;0;; 1; 3;0,1,2;;\n\
             MeshTextureCoords {{ {count}; 0;0;; }} }}"
        ));
        assert!(matches!(e, XError::Syntax { .. }), "{e}");
    }
    let e = read_err(&format!("{HEADER}Mesh {{\n4294967296;\n}}\n"));
    assert!(e.to_string().contains("line 3"), "{e}");
    assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
}

#[test]
fn an_index_out_of_range_drops_the_face_with_a_warning_naming_it() {
    let a = read(&format!(
        "{HEADER}Mesh {{\n3;\n0;0;0;,\n0;1;0;,\n1;0;0;;\n3;\n3;0,1,2;,\n3;0,9,2;,\n3;0,1,-1;;\n}}\n"
    ));
    assert_eq!(a.triangle_count(), 1);
    let w = warnings(&a);
    assert!(w.contains("2 faces were left out"), "{w}");
    assert!(
        w.contains("line 9") && w.contains("face 1 names vertex 9 of 3"),
        "{w}"
    );
}

#[test]
fn nan_and_huge_numbers_read_as_zero_with_a_warning() {
    let a = read(&format!(
        "{HEADER}Mesh {{\n3;\n0;0;0;,\n1.#QNAN0;1;0;,\n1e39;0;-1e30;;\n1;\n3;0,1,2;;\n}}\n"
    ));
    assert!(a.positions.iter().all(|p| p.is_finite()));
    assert_eq!(a.positions[1], Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(a.positions[2], Vec3::ZERO);
    let w = warnings(&a);
    assert!(w.contains("3 numbers were not finite"), "{w}");
    assert!(w.contains("line 5") && w.contains("1.#QNAN0"), "{w}");
}

#[test]
fn unterminated_blocks_and_strings_are_errors_naming_where_they_open() {
    let e = read_err(&format!(
        "{HEADER}\nMesh m {{\n3;\n0;0;0;,\n0;1;0;,\n1;0;0;;\n1;\n3;0,1,2;;\n"
    ));
    assert_eq!(
        e.to_string(),
        "line 3: `Mesh m` opened here is not closed before the end of the file"
    );
    let e = read_err(&format!(
        "{HEADER}template T {{\n<3d82ab44-62da-11cf-ab39-0020af71e433>\n"
    ));
    assert!(
        e.to_string().contains("line 2") && e.to_string().contains("template T"),
        "{e}"
    );
    let e = read_err(&triangle_with(
        "Material { 1;1;1;1;; 5; 0;0;0;; 0;0;0;; TextureFilename { \"a.png; } }",
    ));
    assert!(e.to_string().contains("closing quote"), "{e}");
    // The mesh closes on line 3; the second `}` (line 4) closes nothing.
    let e = read_err(&format!("{HEADER}Mesh {{ 1; 0;0;0;; 0;\n}}\n}}"));
    assert!(e.to_string().contains("line 4"), "{e}");
}

#[test]
fn lying_material_lists_load_with_warnings() {
    // Declares 3 materials, gives 1 (referenced, unknown), 1 face index for
    // 2 faces, and a face naming material 5.
    let a = read(&format!(
        "{HEADER}Mesh {{ 4; 0;0;0;, 0;1;0;, 1;0;0;, 1;1;0;; 3; 3;0,1,2;, 3;1,3,2;, 3;0,1,3;;\n\
         MeshMaterialList {{ 3; 2; 1, 5;; {{ Nowhere }} }} }}"
    ));
    assert_eq!(a.triangle_count(), 3);
    let total: usize = a.materials.iter().map(|m| m.index_count).sum();
    assert_eq!(total, a.indices.len());
    assert_eq!(
        a.materials.len(),
        2,
        "padded only as far as faces use (index 1)"
    );
    let w = warnings(&a);
    assert!(w.contains("`{ Nowhere }` names no material"), "{w}");
    assert!(w.contains("declares 3 materials but gives 1"), "{w}");
    assert!(w.contains("2 material indices for 3 faces"), "{w}");
    assert!(w.contains("names material 5 of 2"), "{w}");
}

#[test]
fn mismatched_uv_and_normal_counts_load_with_warnings() {
    let a = read(&format!(
        "{HEADER}Mesh {{ 3; 0;0;0;, 0;1;0;, 1;0;0;; 1; 3;0,1,2;;\n\
         MeshTextureCoords {{ 2; 0.5,0.25; 1,1; }}\n\
         MeshNormals {{ 1; 0;0;-1;; 2; 3;0,0,0;, 3;0,0,0;; }} }}"
    ));
    assert_eq!(a.uvs, vec![Vec2::new(0.5, 0.25), Vec2::ONE, Vec2::ZERO]);
    assert_eq!(a.normals, vec![Vec3::new(0.0, 0.0, -1.0); 3]);
    let w = warnings(&a);
    assert!(w.contains("2 texture coordinates for 3 vertices"), "{w}");
    assert!(w.contains("`MeshNormals` has 2 faces for 1"), "{w}");
}

#[test]
fn frames_nested_too_deep_are_an_error_not_a_stack_overflow() {
    let depth = 5000;
    let text = format!(
        "{HEADER}{}{}",
        "Frame {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    let e = read_err(&text);
    assert!(e.to_string().contains("nested more than"), "{e}");
    // Unknown blocks nest without recursion: deep is fine.
    let text = format!(
        "{HEADER}{}{}",
        "Other {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    assert_eq!(read(&text).vertex_count(), 0);
}

#[test]
fn garbage_at_the_top_level_is_an_error_with_the_line() {
    let e = read_err(&format!("{HEADER}\n\n12;\n"));
    assert!(matches!(e, XError::Syntax { line: 4, .. }), "{e}");
    let e = read_err(&format!("{HEADER}Mesh 12 {{ }}"));
    assert!(matches!(e, XError::Syntax { line: 2, .. }), "{e}");
}
