//! Background image and video (issue 34.5, MMD's 背景画像 / 背景AVI) drawn
//! through the real renderer by the built binary's `render`: the image's
//! three fit modes, a model over it, a broken image, and a video in step
//! with the timeline (when ffmpeg is there). Golden pixels are worked out
//! by hand from the picture and image sizes (see each test).
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::path::{Path, PathBuf};
use std::process::Output;

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

fn run(args: &[&str]) -> Output {
    common::run_cli(args)
}

fn scratch(tag: &str) -> PathBuf {
    common::scratch_dir(&format!("bg-{tag}"))
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A 40×20 image of four 20×10 blocks: red top left, green top right,
/// blue bottom left, yellow bottom right.
fn quadrants(path: &Path) {
    let img = image::RgbaImage::from_fn(40, 20, |x, y| {
        image::Rgba(match (x < 20, y < 10) {
            (true, true) => RED,
            (false, true) => GREEN,
            (true, false) => BLUE,
            (false, false) => YELLOW,
        })
    });
    img.save(path).unwrap();
}

/// `render` of the demo mannequin at frame 0 over `--background image`
/// fitted by `fit`, `size` pixels; the picture.
fn picture(dir: &Path, image: &Path, fit: &str, size: &str) -> (image::RgbaImage, String) {
    let out = dir.join(fit);
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo_model.pmx");
    let o = run(&[
        "render",
        model,
        "--background",
        image.to_str().unwrap(),
        "--background-fit",
        fit,
        "--frames",
        "0..0",
        "--size",
        size,
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = ok(&o);
    let img = image::open(out.join("00000.png")).expect("png").to_rgba8();
    (img, err)
}

fn at(img: &image::RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.get_pixel(x, y).0
}

/// Stretch: the 40×20 image fills the 64×36 picture, so each corner pixel
/// lies deep inside its block (block edges at x = 32 and y = 18; a corner
/// is 31 or 17 pixels from them, far past the one-texel filter): the
/// corners are exactly the four colours. The mannequin stands in the
/// middle: somewhere in the centre column a pixel is none of the four
/// colours (nor a blend of two neighbours, which keeps one channel at 0
/// or 255 while the model's shading does not).
#[test]
fn a_stretched_image_fills_the_picture_and_the_model_is_drawn_over_it() {
    if render_support::offscreen().is_none() {
        return;
    }
    let dir = scratch("stretch");
    let png = dir.join("quad.png");
    quadrants(&png);
    let (img, _) = picture(&dir, &png, "stretch", "64x36");
    assert_eq!(at(&img, 0, 0), RED);
    assert_eq!(at(&img, 63, 0), GREEN);
    assert_eq!(at(&img, 0, 35), BLUE);
    assert_eq!(at(&img, 63, 35), YELLOW);
    let model_pixels = (0..36)
        .filter(|&y| {
            let p = at(&img, 32, y);
            // Every image colour and every blend of them has red and green
            // at 0 or 255, or blue at 0 or 255.
            let rg_pure = [p[0], p[1]].iter().all(|c| *c == 0 || *c == 255);
            let b_pure = p[2] == 0 || p[2] == 255;
            !(rg_pure && b_pure)
        })
        .count();
    assert!(
        model_pixels >= 5,
        "the model is drawn over the background ({model_pixels} pixels in the centre column)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fit: 40×20 into 80×32 scales by min(80/40, 32/20) = 1.6 to 64×32,
/// centred: x 8..72, the full height. The colour (MMD's white: no colour
/// given) shows in the side bands x < 8 and x ≥ 72; just inside the image
/// the blocks' colours. Original: 40×20 at its size, left = floor((80 −
/// 40)/2) = 20, top = floor((32 − 20)/2) = 6: x 20..60, y 6..26; white
/// around it.
#[test]
fn fit_and_original_size_leave_the_colour_where_worked_out() {
    if render_support::offscreen().is_none() {
        return;
    }
    let dir = scratch("fit");
    let png = dir.join("quad.png");
    quadrants(&png);
    let (fit, _) = picture(&dir, &png, "fit", "80x32");
    for (x, y, want, what) in [
        (0, 0, WHITE, "left band"),
        (7, 16, WHITE, "left band's last column"),
        (72, 16, WHITE, "right band's first column"),
        (79, 31, WHITE, "right band"),
        (9, 1, RED, "image top left"),
        (70, 1, GREEN, "image top right"),
        (9, 30, BLUE, "image bottom left"),
        (70, 30, YELLOW, "image bottom right"),
    ] {
        assert_eq!(at(&fit, x, y), want, "fit: {what} ({x}, {y})");
    }
    let (orig, _) = picture(&dir, &png, "original", "80x32");
    for (x, y, want, what) in [
        (0, 0, WHITE, "corner"),
        (19, 16, WHITE, "left of the image"),
        (60, 16, WHITE, "right of the image"),
        (21, 5, WHITE, "above the image"),
        (21, 26, WHITE, "below the image"),
        (21, 7, RED, "image top left"),
        (58, 7, GREEN, "image top right"),
        (21, 24, BLUE, "image bottom left"),
        (58, 24, YELLOW, "image bottom right"),
    ] {
        assert_eq!(at(&orig, x, y), want, "original: {what} ({x}, {y})");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A truncated PNG: `render` says so naming the file, and still draws
/// (the colour where the image would be); a file that is not there and
/// not a colour is refused, named.
#[test]
fn a_broken_image_is_named_and_the_rest_draws() {
    if render_support::offscreen().is_none() {
        return;
    }
    let dir = scratch("broken");
    let png = dir.join("quad.png");
    quadrants(&png);
    let bytes = std::fs::read(&png).unwrap();
    let cut = dir.join("cut.png");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (img, err) = picture(&dir, &cut, "stretch", "64x36");
    assert!(
        err.contains("background image") && err.contains("cut.png"),
        "names the file: {err}"
    );
    assert_eq!(at(&img, 0, 0), WHITE, "the colour shows instead");
    let gone = dir.join("gone.png");
    let o = run(&[
        "render",
        "--background",
        gone.to_str().unwrap(),
        "--frames",
        "0..0",
        "-o",
        dir.join("x").to_str().unwrap(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo_model.pmx"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("gone.png"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn ffmpeg() -> Option<PathBuf> {
    match vmd_studio::video::locate_ffmpeg(None) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("SKIPPED: the background video test needs ffmpeg: {e}");
            None
        }
    }
}

fn near(p: [u8; 4], want: [u8; 4]) -> bool {
    p.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 12)
}

/// A scene whose background video starts at scene frame 10: frames 0..80
/// rendered. Frame 5 is before the offset (the colour 51, 102, 153 —
/// 0.2, 0.4, 0.6 × 255); frame 25 is video frame 15, in the red second;
/// frame 55 is video frame 45, in the blue second; frame 80 is video frame
/// 70, past its 60 frames: the colour again. (H.264's 4:2:0 colour is
/// allowed 12 levels.)
#[test]
fn a_background_video_plays_in_step_with_the_timeline() {
    use vmd_studio::scene::set::BackgroundVideo;
    use vmd_studio::scene::{Actor, Scene};
    if render_support::offscreen().is_none() {
        return;
    }
    let Some(ffmpeg) = ffmpeg() else {
        return;
    };
    let dir = scratch("video");
    let video = dir.join("rb.mp4");
    common::red_then_blue(&ffmpeg, &video, "64x36");
    let mut s: Scene<PathBuf> = Scene::default();
    s.actors.push(Actor::new("Dancer"));
    s.set.background.colour = [0.2, 0.4, 0.6];
    s.set.background.video = Some(BackgroundVideo {
        path: video.clone(),
        frame_offset: 10,
    });
    let scene = dir.join("v.vmdscene");
    vmd_studio::scene::file::save(&s, &scene).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "render",
        scene.to_str().unwrap(),
        "--frames",
        "0..80",
        "--size",
        "48x27",
        "-o",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    let corner = |i: u32| {
        let img = image::open(out.join(format!("{i:05}.png")))
            .expect("png")
            .to_rgba8();
        at(&img, 0, 0)
    };
    assert_eq!(corner(5), [51, 102, 153, 255], "before the offset");
    assert!(near(corner(25), RED), "red part: {:?}", corner(25));
    assert!(near(corner(55), BLUE), "blue part: {:?}", corner(55));
    assert_eq!(corner(80), [51, 102, 153, 255], "past the end");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Speed: through the renderer's stage (what `render`, `storyboard` and
/// File ▸ Export video draw with), the image goes to the GPU once however
/// many pictures are drawn; a video frame goes once however many pictures
/// show it (60 pictures a second show each twice), and playing on reads
/// one ffmpeg stream.
#[test]
fn the_image_is_uploaded_once_and_each_video_frame_once() {
    use vmd_studio::render::stage::{Stage, demo_model};
    use vmd_studio::render::{Offscreen, TextureRgba};
    use vmd_studio::scene::set::{BackgroundVideo, ImageFit};
    if render_support::offscreen().is_none() {
        return;
    }
    let mut stage = Stage::new(Offscreen::new().unwrap());
    stage.add_actor(demo_model().unwrap(), None, 0.0).unwrap();
    let target = stage.target(32, 18).unwrap();
    let image = TextureRgba {
        width: 2,
        height: 2,
        pixels: [RED, GREEN, BLUE, YELLOW].concat(),
    };
    stage
        .set_background_image(&image, ImageFit::Stretch)
        .unwrap();
    for f in 0..4 {
        let pic = stage.picture(&target, f64::from(f)).unwrap();
        assert_eq!(pic.pixel(0, 0), Some(RED));
    }
    assert_eq!(stage.background_uploads(), 1, "the image once");
    let Some(ffmpeg) = ffmpeg() else {
        return;
    };
    let dir = scratch("uploads");
    let video = dir.join("rb.mp4");
    common::red_then_blue(&ffmpeg, &video, "64x36");
    let v = BackgroundVideo {
        path: video,
        frame_offset: 0,
    };
    stage.set_background_video(&v, &ffmpeg);
    for f in [0.0, 0.5, 1.0, 1.5, 2.0] {
        let pic = stage.picture(&target, f).unwrap();
        assert!(
            near(pic.pixel(0, 0).unwrap(), RED),
            "the video over the image"
        );
    }
    assert_eq!(
        stage.background_uploads(),
        1 + 3,
        "video frames 0, 1 and 2, once each"
    );
    assert_eq!(stage.background_video_processes(), 1);
    assert!(stage.take_background_messages().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
