//! The one Windows-path rule every reader uses (`vmd_studio::winpath`):
//! a model's texture name, a `.vac`'s `.x` and a project's paths are
//! found the same way — letter case and full-width/half-width alike, `..`
//! giving a plain path, a file name on disk in Shift_JIS bytes matched by
//! its text. Expected paths are the files each test makes.

use std::path::Path;

use vmd_studio::model::xfile::VacFile;
use vmd_studio::project::Resolver;
use vmd_studio::winpath::{resolve_beside, split};

fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b"x").unwrap();
}

/// A `.vac` written on Windows names its `.x` in full-width capitals
/// (`ＮＥＧＩ.X`); the file beside it is `negi.x`. Windows' own lookup
/// would not fold the width, but MMD users' archives do this, and the
/// project resolver always folded it: now the `.vac` reader does too.
#[test]
fn a_vac_finds_its_x_by_the_projects_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("props").join("negi.x");
    touch(&x);
    let vac = "ねぎ\r\nprops\\ＮＥＧＩ.X\r\n1.0\r\n0,0,0\r\n0,0,0\r\n右手首\r\n";
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(vac);
    let v = VacFile::read(&bytes).unwrap();
    assert_eq!(v.resolve_x(tmp.path()), Some(x.clone()));
    // The same name, resolved as a project path from that folder.
    let r = Resolver::in_folder(tmp.path().to_path_buf());
    assert_eq!(r.resolve(r"props\ＮＥＧＩ.X").path, Some(x));
}

#[test]
fn dot_dot_gives_a_plain_path_and_nothing_is_guessed_for_relative_names() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared").join("toon.bmp");
    touch(&shared);
    let model_dir = tmp.path().join("model");
    std::fs::create_dir_all(&model_dir).unwrap();
    assert_eq!(
        resolve_beside(&model_dir, r"..\SHARED\Toon.BMP"),
        Some(shared)
    );
    // A relative name that is not there is not looked for by file name.
    touch(&model_dir.join("toon.bmp"));
    assert_eq!(resolve_beside(&model_dir, r"other\toon.bmp"), None);
    // An absolute one is (the author's folder, not this machine's).
    assert_eq!(
        resolve_beside(&model_dir, r"C:\Users\作者\toon.bmp"),
        Some(model_dir.join("toon.bmp"))
    );
    assert_eq!(split(r"C:\a//b\\c.x"), ["C:", "a", "b", "c.x"]);
}

/// A file whose name on disk is Shift_JIS bytes (not UTF-8), as some
/// unzip tools leave Japanese archives: found by every reader.
#[cfg(unix)]
#[test]
fn a_shift_jis_file_name_on_disk_is_found_by_its_text() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("髪.png");
    let on_disk = tmp.path().join(std::ffi::OsStr::from_bytes(&sjis));
    if std::fs::write(&on_disk, b"x").is_err() {
        return; // a file system that refuses non-UTF-8 names
    }
    assert_eq!(resolve_beside(tmp.path(), "髪.PNG"), Some(on_disk.clone()));
    let r = Resolver::in_folder(tmp.path().to_path_buf());
    assert_eq!(r.resolve(r"C:\x\髪.png").path, Some(on_disk));
}
