//! `scene::collect`: a scene's files planned into one folder and written.
//! A `.x` accessory naming three textures (one below its folder, one by an
//! absolute Windows path, one outside its folder), a song, and a motion
//! given as bytes: each copy equals its source byte for byte, the texture
//! outside is named and not copied, the scene file opens from the folder
//! with nothing missing, and a second write refuses and writes nothing.

use std::path::{Path, PathBuf};

use vmd_studio::scene::collect::{self, Source};
use vmd_studio::scene::set::SetAccessory;
use vmd_studio::scene::{Actor, ModelRef, Scene, Song};

fn x_with_textures(names: &[&str]) -> String {
    let mats: String = names
        .iter()
        .map(|n| {
            format!(
                "  Material {{ 1;1;1;1;; 5; 0;0;0;; 0;0;0;; TextureFilename {{ \"{n}\"; }} }}\n"
            )
        })
        .collect();
    let k = names.len();
    let faces: Vec<String> = (0..k).map(|i| i.to_string()).collect();
    format!(
        "xof 0303txt 0032\nMesh {{\n 3;\n 0;0;0;,\n 1;0;0;,\n 0;1;0;;\n {k};\n{} \n MeshMaterialList {{ {k}; {k}; {};\n{mats} }}\n}}\n",
        (0..k).map(|_| " 3;0,1,2;").collect::<Vec<_>>().join(",\n") + ";",
        faces.join(",") + ";"
    )
}

fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_scene_and_everything_it_names_go_into_one_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("work");
    let acc_dir = src.join("props");
    std::fs::create_dir_all(acc_dir.join("tex")).unwrap();
    std::fs::write(acc_dir.join("tex").join("a.png"), b"png a").unwrap();
    std::fs::write(acc_dir.join("b.bmp"), b"bmp b").unwrap();
    std::fs::write(src.join("outside.png"), b"outside").unwrap();
    let x = acc_dir.join("lamp.x");
    std::fs::write(
        &x,
        x_with_textures(&["tex/a.png", "C:/Users/me/b.bmp", "../outside.png"]),
    )
    .unwrap();
    let m = vmd_studio::model::read_set_piece(&x, &std::fs::read(&x).unwrap())
        .unwrap_or_else(|e| panic!("the test's .x reads: {e}"));
    assert_eq!(m.textures.len(), 3, "{:?}", m.textures);
    let song = src.join("song.wav");
    std::fs::write(&song, b"RIFF....").unwrap();

    let mut scene: Scene<u8> = Scene::default();
    let mut actor = Actor::new("dancer".to_owned());
    actor.model = ModelRef::File(x.clone());
    actor.motion = Some(7);
    scene.actors.push(actor);
    scene.camera = Some(7);
    scene.set.accessories.push(SetAccessory::new(x.clone()));
    scene.song = Some(Song {
        path: song.clone(),
        offset: 3,
    });
    let gone = src.join("gone.x");
    scene.set.accessories.push(SetAccessory::new(gone.clone()));

    let out = tmp.path().join("collected");
    let plan = collect::plan(&scene, &out, "show", |h| {
        assert_eq!(*h, 7);
        Some((
            "dance: take 1.vmd".to_owned(),
            Source::Bytes(b"vmd bytes".to_vec()),
        ))
    });
    let written = plan.write().unwrap_or_else(|e| panic!("{e}"));
    let motion = out.join("motions").join("dance_ take 1.vmd");
    let actor_dir = out.join("models").join("lamp");
    let expect = [
        (motion.clone(), b"vmd bytes".to_vec()),
        (actor_dir.join("lamp.x"), std::fs::read(&x).unwrap()),
        (actor_dir.join("tex").join("a.png"), b"png a".to_vec()),
        (actor_dir.join("b.bmp"), b"bmp b".to_vec()),
        (out.join("song").join("song.wav"), b"RIFF....".to_vec()),
    ];
    for (p, bytes) in &expect {
        assert_eq!(
            &std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            bytes
        );
    }
    // The actor's model and the accessory are the same file, copied once.
    assert_eq!(written.len(), expect.len() + 1, "{written:?}");
    let outside = plan
        .left_out
        .iter()
        .filter(|l| l.contains("../outside.png"))
        .count();
    assert_eq!(outside, 1, "{:?}", plan.left_out);
    assert!(
        plan.left_out.iter().any(|l| l.contains("gone.x")),
        "{:?}",
        plan.left_out
    );

    let loaded = vmd_studio::scene::file::load(&out.join("show.vmdscene")).unwrap();
    let names: Vec<String> = loaded.missing.iter().map(|m| format!("{m:?}")).collect();
    assert_eq!(
        names.len(),
        1,
        "only the accessory that was never there: {names:?}"
    );
    let s = &loaded.scene;
    assert_eq!(s.actors[0].motion.as_ref(), Some(&motion));
    assert_eq!(s.camera.as_ref(), Some(&motion));
    assert_eq!(s.actors[0].model, ModelRef::File(actor_dir.join("lamp.x")));
    assert_eq!(s.set.accessories[0].path, actor_dir.join("lamp.x"));
    assert_eq!(s.song.as_ref().map(|s| s.offset), Some(3));

    let before = all_files(&out);
    let again = collect::plan(&scene, &out, "show", |_| {
        Some(("dance.vmd".to_owned(), Source::Bytes(b"other".to_vec())))
    });
    let err = again.write().unwrap_err();
    assert!(err.contains("exists already"), "{err}");
    assert_eq!(all_files(&out), before, "nothing written");
}
