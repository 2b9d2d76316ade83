//! Windows paths from a project found on this machine: absolute,
//! `UserFile\`, a moved folder, letter case and width, relative, the file
//! name searched in the project's tree, and a file that is nowhere.

use std::path::{Path, PathBuf};

use vmd_studio::project::{Found, Resolver};

fn tree(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-pmm-paths-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b"x").unwrap();
}

#[test]
fn an_absolute_path_that_exists_is_taken_as_is() {
    let t = tree("abs");
    let f = t.join("abs").join("a.pmx");
    touch(&f);
    let r = Resolver::for_file(&t.join("proj").join("p.pmm"));
    let got = r.resolve(f.to_str().unwrap());
    assert_eq!(got.found, Some(Found::AsIs));
    assert_eq!(got.path.as_deref(), Some(f.as_path()));
}

#[test]
fn the_part_after_userfile_is_found_beside_a_parent_folder() {
    let t = tree("userfile");
    let f = t
        .join("UserFile")
        .join("Model")
        .join("ミク")
        .join("ミク.pmx");
    touch(&f);
    let r = Resolver::for_file(&t.join("projects").join("p.pmm"));
    let got = r.resolve(r"C:\MikuMikuDance\UserFile\Model\ミク\ミク.pmx");
    assert_eq!(got.found, Some(Found::UserFile));
    assert_eq!(got.path.as_deref(), Some(f.as_path()));
}

#[test]
fn a_moved_mmd_folder_is_found_by_its_userfile_part() {
    let t = tree("moved");
    // MMD was at D:\old; the whole folder now sits at t/moved, project inside.
    let f = t.join("moved").join("UserFile").join("Model").join("a.pmx");
    touch(&f);
    let r = Resolver::for_file(&t.join("moved").join("UserFile").join("p.pmm"));
    let got = r.resolve(r"D:\old\UserFile\Model\a.pmx");
    assert_eq!(got.found, Some(Found::UserFile));
    assert_eq!(got.path.as_deref(), Some(f.as_path()));
}

#[test]
fn letter_case_and_width_do_not_matter() {
    let t = tree("width");
    let f = t.join("UserFile").join("model").join("ミク.pmx");
    touch(&f);
    let r = Resolver::for_file(&t.join("p.pmm"));
    let got = r.resolve(r"C:\MMD\USERFILE\ＭＯＤＥＬ\ﾐｸ.PMX");
    assert_eq!(got.found, Some(Found::UserFile));
    assert_eq!(got.path.as_deref(), Some(f.as_path()));
}

#[test]
fn a_relative_path_is_taken_from_the_project_folder() {
    let t = tree("rel");
    let f = t.join("pmx").join("m.pmx");
    touch(&f);
    touch(&t.join("pmm").join("p.pmm"));
    let r = Resolver::for_file(&t.join("pmm").join("p.pmm"));
    let got = r.resolve(r"..\PMX\M.pmx");
    assert_eq!(got.found, Some(Found::BesideProject));
    assert!(got.path.unwrap().ends_with("m.pmx"));
}

#[test]
fn the_file_name_is_searched_in_the_tree_preferring_shared_folders() {
    let t = tree("search");
    let near = t.join("deep").join("x").join("tex.png");
    let other = t.join("other").join("tex.png");
    touch(&near);
    touch(&other);
    let r = Resolver::for_file(&t.join("p.pmm"));
    let got = r.resolve(r"C:\elsewhere\X\TEX.png");
    assert_eq!(got.found, Some(Found::Searched));
    assert_eq!(got.path.as_deref(), Some(near.as_path()));
}

#[test]
fn a_file_that_is_nowhere_is_missing_and_keeps_its_path() {
    let t = tree("missing");
    let r = Resolver::for_file(&t.join("p.pmm"));
    let got = r.resolve(r"C:\MMD\UserFile\Model\gone.pmx");
    assert_eq!(got.path, None);
    assert_eq!(got.found, None);
    assert_eq!(got.original, r"C:\MMD\UserFile\Model\gone.pmx");
    assert_eq!(r.resolve("").path, None);
}
