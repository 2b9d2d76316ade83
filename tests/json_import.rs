//! `import-json` refuses a tampered export, naming the field, instead of
//! building a VMD that reads back differently from what the JSON says.
//!
//! Each case takes an honest export of a small hand-built motion, changes
//! one field the way a hand edit or a broken tool would, and checks the
//! refusal names that field. The layout facts (a reader takes 4 bytes after
//! the last section as the next section's count; v1 headers start with
//! "Vocaloid Motion Data file") are from /work/shared/spec/vmd-format.md.

use serde_json::{Value, json};
use vmd_studio::vmd::ops::{self, ExportOptions};
use vmd_studio::vmd::{self, BoneKey, CameraKey, IkKey, LightKey, Motion, NameEncoding};

fn motion() -> Motion {
    let sjis = NameEncoding::ShiftJis;
    let mut m = Motion::new_v2();
    m.bones.push(
        BoneKey::new("センター", sjis, 0, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0]).expect("bone"),
    );
    m.cameras.push(CameraKey::new(
        0,
        -45.0,
        [0.0, 10.0, 0.0],
        [0.1, 0.2, 0.0],
        30,
        true,
    ));
    m.lights
        .push(LightKey::new(0, [0.6, 0.6, 0.6], [-0.5, -1.0, 0.5]));
    let mut ik = IkKey::new(0, true);
    ik.push_entry("左足ＩＫ", sjis, true).expect("entry");
    m.iks.push(ik);
    m
}

fn export() -> Value {
    let (text, _) = ops::export_json(&motion(), ExportOptions::default()).expect("export");
    serde_json::from_str(&text).expect("json")
}

/// Imports `doc`; the error text.
fn refused(doc: &Value) -> String {
    match ops::import_json(&doc.to_string()) {
        Ok(_) => panic!("accepted a tampered JSON"),
        Err(e) => e.to_string(),
    }
}

fn tampered(f: impl FnOnce(&mut Value)) -> String {
    let mut v = export();
    f(&mut v);
    refused(&v)
}

#[test]
fn an_honest_export_imports_to_the_same_bytes() {
    let m = motion();
    let v = export();
    let (back, report) = ops::import_json(&v.to_string()).expect("import");
    assert_eq!(
        vmd::write(&back).expect("write"),
        vmd::write(&m).expect("write")
    );
    assert_eq!(report.warnings, 0, "{report}");
}

#[test]
fn header_version_and_format_must_agree() {
    let e = tampered(|v| v["version"] = json!(3));
    assert!(e.contains("version is 3"), "{e}");
    // Version 1 with a version-2 header.
    let e = tampered(|v| v["version"] = json!(1));
    assert!(e.contains("header_hex") && e.contains("version"), "{e}");
    let e = tampered(|v| v["header_text"] = json!("Vocaloid Motion Data 0003"));
    assert!(e.contains("header_text"), "{e}");
    let e = tampered(|v| v["format_version"] = json!(2));
    assert!(e.contains("format_version"), "{e}");
}

#[test]
fn sections_and_trailing_bytes_must_agree() {
    // Three sections present, but the light section (the 4th) has a key.
    let e = tampered(|v| v["sections_present"] = json!(3));
    assert!(
        e.contains("sections_present") && e.contains("lights"),
        "{e}"
    );
    // Six sections but the last two are empty; five sections then 4
    // trailing bytes: a reader takes them as the IK count.
    let mut m = motion();
    m.iks.clear();
    m.sections_present = 5;
    let (text, _) = ops::export_json(&m, ExportOptions::default()).expect("export");
    let mut v: Value = serde_json::from_str(&text).expect("json");
    v["trailing_hex"] = json!("00000000");
    let e = refused(&v);
    assert!(e.contains("trailing_hex"), "{e}");
    // Three trailing bytes cannot be a count: kept as trailing data.
    v["trailing_hex"] = json!("abcdef");
    let (back, _) = ops::import_json(&v.to_string()).expect("3 trailing bytes");
    assert_eq!(back.trailing, vec![0xab, 0xcd, 0xef]);
    assert_eq!(back.sections_present, 5);
}

#[test]
fn hex_is_strict() {
    // u8::from_str_radix accepts "+f"; a hex field does not.
    let e = tampered(|v| {
        let h = v["bones"][0]["name_hex"].as_str().expect("hex").to_owned();
        v["bones"][0]["name_hex"] = json!(format!("+{}", &h[1..]));
    });
    assert!(e.contains("bone key #0") && e.contains("not hex"), "{e}");
    let e = tampered(|v| v["trailing_hex"] = json!("abc"));
    assert!(e.contains("trailing_hex"), "{e}");
    let e = tampered(|v| v["model_name_hex"] = json!("zz"));
    assert!(e.contains("model_name_hex"), "{e}");
    // A float's bit pattern: exactly 8 hex digits.
    let e = tampered(|v| v["bones"][0]["position"][0] = json!("0x+3f80000"));
    assert!(e.contains("bad float"), "{e}");
    let e = tampered(|v| v["bones"][0]["position"][0] = json!("0x3f80"));
    assert!(e.contains("bad float"), "{e}");
    // Upper-case digits are still hex.
    let mut v = export();
    let h = v["header_hex"].as_str().expect("hex").to_uppercase();
    v["header_hex"] = json!(h);
    assert!(ops::import_json(&v.to_string()).is_ok());
}

#[test]
fn fields_that_disagree_with_their_raw_bytes_are_refused() {
    let e = tampered(|v| v["bones"][0]["name"] = json!("右腕"));
    assert!(e.contains("bone key #0") && e.contains("name_hex"), "{e}");
    let e = tampered(|v| v["bones"][0]["curves"]["x"]["x1"] = json!(99));
    assert!(
        e.contains("bone key #0") && e.contains("curves") && e.contains("interpolation_hex"),
        "{e}"
    );
    let e = tampered(|v| v["bones"][0]["physics_off"] = json!(true));
    assert!(e.contains("physics_off"), "{e}");
    let e = tampered(|v| v["cameras"][0]["curves"]["fov"]["y2"] = json!(3));
    assert!(e.contains("camera key #0") && e.contains("curves"), "{e}");
    let e = tampered(|v| v["cameras"][0]["perspective"] = json!(false));
    assert!(e.contains("perspective_byte"), "{e}");
    let e = tampered(|v| v["iks"][0]["show"] = json!(false));
    assert!(e.contains("show_byte"), "{e}");
    let e = tampered(|v| v["iks"][0]["entries"][0]["enabled"] = json!(false));
    assert!(e.contains("entry 0") && e.contains("enabled_byte"), "{e}");
    // Without the raw bytes, the fields are the source: a curve edit by hand.
    let mut v = export();
    v["bones"][0]["curves"]["x"]["x1"] = json!(99);
    v["bones"][0]
        .as_object_mut()
        .expect("object")
        .remove("interpolation_hex");
    let (back, _) = ops::import_json(&v.to_string()).expect("built from the curves");
    assert_eq!(back.bones[0].curves()[0].x1, 99);
}
