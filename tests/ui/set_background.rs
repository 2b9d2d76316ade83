//! Scene panel ▸ Set ▸ Background image and video (issue 34.5), as a user
//! sets them (egui_kittest, no display): Image… picks a PNG in the
//! built-in file browser, the fit combo switches to Stretch, undo walks
//! back (fit, then the image), redo forward; Video… picks a video, its
//! offset is one undo step; the scene file keeps both with paths relative
//! to it, and the viewport is handed them.
//! Run with `env -u DISPLAY cargo test --test ui set_background`.

use crate::common;
use common::ui::{harness, settle};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::panels::scene::Action;
use vmd_studio::app::panels::scene_set::SetAction;
use vmd_studio::scene::set::ImageFit;

fn fit(h: &Harness<'_, StudioApp>) -> Option<ImageFit> {
    h.state()
        .ws
        .scene()
        .set
        .background
        .image
        .as_ref()
        .map(|i| i.fit)
}

fn undo(h: &mut Harness<'_, StudioApp>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
}

#[test]
fn a_background_image_is_picked_fitted_undone_and_saved_relative() {
    use vmd_studio::app::scene_ops::scene_view;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let img = image::RgbaImage::from_fn(2, 2, |x, y| {
        image::Rgba([255 * (x as u8), 255 * (y as u8), 0, 255])
    });
    img.save(dir.join("sky.png")).unwrap();
    std::fs::write(dir.join("clouds.mp4"), b"not really a video").unwrap();

    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.open_demo();
    let mut h = harness(app);
    settle(&mut h);
    assert_eq!(fit(&h), None);

    common::ui::pick_in_browser(&mut h, "Image…", dir, "sky.png");
    let bg = &h.state().ws.scene().set.background;
    let im = bg.image.as_ref().expect("the image is set");
    assert!(im.path.ends_with("sky.png"), "{:?}", im.path);
    assert_eq!(im.fit, ImageFit::Fit, "Fit by default");
    let view = scene_view(&h.state().ws, &h.state().scene);
    assert_eq!(
        view.background_image.map(|i| i.path.clone()),
        Some(im.path.clone()),
        "the viewport is handed the image"
    );

    // The fit combo: open it, pick Stretch.
    common::ui::scroll_to_label(&mut h, vmd_studio::app::dock::Panel::Scene, "Remove image");
    h.get_by(|n| {
        n.role() == egui::accesskit::Role::ComboBox && n.value().as_deref() == Some("Fit")
    })
    .click();
    h.run_steps(3);
    h.get_by_label("Stretch").click();
    h.run_steps(3);
    assert_eq!(fit(&h), Some(ImageFit::Stretch));

    // Undo: the fit, then the image; redo both.
    undo(&mut h);
    assert_eq!(fit(&h), Some(ImageFit::Fit), "undo: Fit again");
    undo(&mut h);
    assert_eq!(fit(&h), None, "undo: no image");
    for _ in 0..2 {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
        h.run_steps(2);
    }
    assert_eq!(
        fit(&h),
        Some(ImageFit::Stretch),
        "redo: the image, stretched"
    );

    // A video, and its offset (the action the drag field returns): each
    // one undo step.
    common::ui::pick_in_browser(&mut h, "Video…", dir, "clouds.mp4");
    let v = h.state().ws.scene().set.background.video.clone();
    let v = v.expect("the video is set");
    assert!(v.path.ends_with("clouds.mp4"));
    assert_eq!(v.frame_offset, 0);
    for f in [3, 7, 12] {
        h.state_mut()
            .scene_action(Action::Set(SetAction::BackgroundVideoOffset(f)));
        h.run_steps(1);
    }
    let offset = |h: &Harness<'_, StudioApp>| {
        (h.state().ws.scene().set.background.video.as_ref()).map(|v| v.frame_offset)
    };
    assert_eq!(offset(&h), Some(12));
    undo(&mut h);
    assert_eq!(offset(&h), Some(0), "one drag, one undo step");
    // The picture still draws with a video that is not one: a notice, no
    // panic.
    h.run_steps(3);

    // Saved: paths relative to the scene file.
    let scene_path = dir.join("with background.vmdscene");
    h.state_mut().save_scene_to(scene_path.clone());
    settle(&mut h);
    let text = std::fs::read_to_string(&scene_path).expect("scene written");
    assert!(
        text.contains("\"sky.png\"") && text.contains("\"stretch\""),
        "the image, relative, stretched: {text}"
    );
    assert!(text.contains("\"clouds.mp4\""), "{text}");
    assert!(
        !text.contains(&dir.display().to_string()),
        "no absolute path: {text}"
    );
    let loaded = vmd_studio::scene::file::load(&scene_path).unwrap();
    let bg = loaded.scene.set.background;
    assert_eq!(bg.image.map(|i| i.fit), Some(ImageFit::Stretch));
    assert_eq!(bg.video.map(|v| v.frame_offset), Some(0));

    // Remove image, clicked.
    common::ui::scroll_to_label(&mut h, vmd_studio::app::dock::Panel::Scene, "Remove image");
    h.get_by_label("Remove image").click();
    h.run_steps(2);
    assert_eq!(fit(&h), None);
}

/// The demo in a window drawn by kittest's wgpu renderer with the app's
/// model renderer installed; `None` (skipped) without an adapter.
fn demo_drawn() -> Option<Harness<'static, StudioApp>> {
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = vmd_studio::app::CentralView::Preview;
    app.open_demo();
    let mut h = crate::common::ui::wgpu_harness(app, 900.0, 700.0)?;
    settle(&mut h);
    Some(h)
}

/// Pixels of the viewport panel within 3 levels of `rgb`.
fn count_near(h: &Harness<'_, StudioApp>, img: &image::RgbaImage, rgb: [u8; 3]) -> usize {
    count_within(h, img, rgb, 3)
}

/// The viewport draws the background image through the real path (the
/// image decoded, uploaded, drawn by the renderer behind the demo
/// dancer, blitted into egui): with a stretched pure-green image most of
/// the viewport is that green; without it, none is (the demo's white
/// background, its grey grid and its mannequin have no pure green).
#[test]
fn the_viewport_draws_the_background_image_behind_the_dancer() {
    use vmd_studio::scene::set::BackgroundImage;
    let Some(mut h) = demo_drawn() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let png = tmp.path().join("green.png");
    image::RgbaImage::from_pixel(4, 4, image::Rgba([0, 255, 0, 255]))
        .save(&png)
        .unwrap();
    let img = h.render().expect("the window renders");
    let before = count_near(&h, &img, [0, 255, 0]);
    assert_eq!(before, 0, "no green before");
    h.state_mut()
        .scene_action(Action::Set(SetAction::BackgroundImage(Some(
            BackgroundImage {
                path: png.clone(),
                fit: ImageFit::Stretch,
            },
        ))));
    // The image decodes on a worker: a few frames later it is drawn.
    let mut green = 0;
    for _ in 0..20 {
        h.run_steps(2);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let img = h.render().expect("the window renders");
        green = count_near(&h, &img, [0, 255, 0]);
        if green > 0 {
            break;
        }
    }
    let r = (h.state().panels.dock)
        .rect_of(vmd_studio::app::dock::Panel::Viewport)
        .unwrap();
    let area = (r.width() * r.height()) as usize;
    assert!(
        green * 2 > area,
        "most of the viewport ({area} pixels) is the image's green: {green}"
    );
    assert!(green < area, "the dancer and the overlays are over it");
}

/// The viewport plays a background video in step with the playhead (read
/// on a worker, so the picture may lag a repaint or two behind a jump):
/// a 2 s video, red then blue, starting at scene frame 0, stretched over
/// the picture; at frame 15 most of the viewport is red, at frame 45
/// blue, and at frame 90 (past its 60 frames) neither: the white colour.
#[test]
fn the_viewport_plays_the_background_video_in_step() {
    use vmd_studio::scene::set::BackgroundVideo;
    use vmd_studio::workspace::TransportEvent;
    let ffmpeg = match vmd_studio::video::locate_ffmpeg(None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("SKIPPED: needs ffmpeg: {e}");
            return;
        }
    };
    let Some(mut h) = demo_drawn() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let video = tmp.path().join("rb.mp4");
    crate::common::red_then_blue(&ffmpeg, &video, "64x36");
    h.state_mut()
        .scene_action(Action::Set(SetAction::BackgroundVideo(Some(
            BackgroundVideo {
                path: video,
                frame_offset: 0,
            },
        ))));
    let r = (h.state().panels.dock)
        .rect_of(vmd_studio::app::dock::Panel::Viewport)
        .unwrap();
    let area = (r.width() * r.height()) as usize;
    // The share of the viewport within 12 levels of `rgb`, once the worker
    // has answered (a few repaints).
    let mut share_at = |frame: f64, rgb: [u8; 3]| {
        h.state_mut().transport(TransportEvent::Seek(frame));
        let mut n = 0;
        for _ in 0..40 {
            h.run_steps(2);
            std::thread::sleep(std::time::Duration::from_millis(25));
            let img = h.render().expect("the window renders");
            n = count_within(&h, &img, rgb, 12);
            if n * 2 > area {
                break;
            }
        }
        n as f64 / area as f64
    };
    let red = share_at(15.0, [255, 0, 0]);
    assert!(red > 0.5, "frame 15: red over {:.0} %", red * 100.0);
    let blue = share_at(45.0, [0, 0, 255]);
    assert!(blue > 0.5, "frame 45: blue over {:.0} %", blue * 100.0);
    let white = share_at(90.0, [255, 255, 255]);
    assert!(
        white > 0.5,
        "frame 90, past the end: white over {:.0} %",
        white * 100.0
    );
}

/// Pixels of the viewport panel within `levels` of `rgb`.
fn count_within(
    h: &Harness<'_, StudioApp>,
    img: &image::RgbaImage,
    rgb: [u8; 3],
    levels: u8,
) -> usize {
    let r = (h.state().panels.dock)
        .rect_of(vmd_studio::app::dock::Panel::Viewport)
        .expect("the viewport is shown");
    let (x0, y0) = (r.min.x.max(0.0) as u32, r.min.y.max(0.0) as u32);
    let (x1, y1) = (
        (r.max.x as u32).min(img.width()),
        (r.max.y as u32).min(img.height()),
    );
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel(x, y).0;
            n += usize::from((0..3).all(|k| p[k].abs_diff(rgb[k]) <= levels));
        }
    }
    n
}
