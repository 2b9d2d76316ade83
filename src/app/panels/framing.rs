//! The camera view's output frame: its aspect ratios and the options kept
//! with a view ([`Settings`]), the frame's rectangle, the mask outside it,
//! guides and notices. Pure egui painting; no GPU.

/// The largest rectangle of `aspect` (width / height) centred in `outer`
/// ([`crate::scene::view::ScreenRect::fit_aspect`]).
pub fn frame_rect(outer: egui::Rect, aspect: f32) -> egui::Rect {
    let f = super::viewport::scene_view::screen_rect(outer).fit_aspect(aspect);
    egui::Rect::from_min_max(egui::pos2(f.min.x, f.min.y), egui::pos2(f.max.x, f.max.y))
}

/// Output aspect ratios offered for the camera view.
pub const ASPECTS: [(&str, f32); 4] = [
    ("16:9", 16.0 / 9.0),
    ("4:3", 4.0 / 3.0),
    ("1:1", 1.0),
    ("9:16", 9.0 / 16.0),
];

/// Darkens `outer` outside `frame` (the part of the view the video will not show).
pub fn mask_outside(painter: &egui::Painter, outer: egui::Rect, frame: egui::Rect) {
    let c = egui::Color32::from_black_alpha(200);
    let rects = [
        egui::Rect::from_min_max(outer.min, egui::pos2(outer.max.x, frame.min.y)),
        egui::Rect::from_min_max(egui::pos2(outer.min.x, frame.max.y), outer.max),
        egui::Rect::from_min_max(
            egui::pos2(outer.min.x, frame.min.y),
            egui::pos2(frame.min.x, frame.max.y),
        ),
        egui::Rect::from_min_max(
            egui::pos2(frame.max.x, frame.min.y),
            egui::pos2(outer.max.x, frame.max.y),
        ),
    ];
    for r in rects {
        if r.width() > 0.0 && r.height() > 0.0 {
            painter.rect_filled(r, 0.0, c);
        }
    }
    painter.rect_stroke(
        frame,
        0.0,
        egui::Stroke::new(1.0, egui::Color32::from_gray(110)),
        egui::StrokeKind::Outside,
    );
}

/// Rule-of-thirds lines and the 90 % / 80 % (action / title) safe areas.
pub fn guides(painter: &egui::Painter, frame: egui::Rect) {
    let thirds = egui::Stroke::new(1.0, egui::Color32::from_white_alpha(70));
    for k in 1..3 {
        let x = frame.min.x + frame.width() * k as f32 / 3.0;
        let y = frame.min.y + frame.height() * k as f32 / 3.0;
        painter.line_segment(
            [egui::pos2(x, frame.min.y), egui::pos2(x, frame.max.y)],
            thirds,
        );
        painter.line_segment(
            [egui::pos2(frame.min.x, y), egui::pos2(frame.max.x, y)],
            thirds,
        );
    }
    for (k, alpha) in [(0.9, 60), (0.8, 90)] {
        let r = egui::Rect::from_center_size(frame.center(), frame.size() * k);
        painter.rect_stroke(
            r,
            0.0,
            egui::Stroke::new(
                1.0,
                egui::Color32::from_rgba_unmultiplied(255, 220, 120, alpha),
            ),
            egui::StrokeKind::Inside,
        );
    }
}

/// Text on a dark rounded backing, kept inside `clip`.
pub fn notice(painter: &egui::Painter, clip: egui::Rect, at: egui::Pos2, text: &str) {
    let galley = painter.layout(
        text.to_owned(),
        egui::FontId::proportional(14.0),
        egui::Color32::from_gray(235),
        (clip.width() - 24.0).max(80.0),
    );
    let size = galley.size() + egui::vec2(16.0, 10.0);
    let mut r = egui::Rect::from_center_size(at, size);
    // Keep the whole backing inside the clip rectangle.
    let dx = (clip.min.x + 4.0 - r.min.x).max(0.0) - (r.max.x - clip.max.x + 4.0).max(0.0);
    let dy = (clip.min.y + 4.0 - r.min.y).max(0.0) - (r.max.y - clip.max.y + 4.0).max(0.0);
    r = r.translate(egui::vec2(dx, dy));
    painter.rect_filled(r, 6.0, egui::Color32::from_black_alpha(190));
    painter.galley(
        r.min + egui::vec2(8.0, 5.0),
        galley,
        egui::Color32::from_gray(235),
    );
}

/// Viewport options of the model view: part of each view's state
/// ([`super::viewport::ViewState::look`](crate::app::panels::viewport::ViewState::look)), kept between runs with the
/// app's settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Index into [`ASPECTS`], or `ASPECTS.len()` for `custom`.
    pub aspect: usize,
    /// Custom output size (width, height) when `aspect` is custom.
    pub custom: (u32, u32),
    /// Thirds and safe-area guides in the camera view.
    pub guides: bool,
    /// Draw the skeleton over the rendered model.
    pub skeleton_overlay: bool,
    /// MMD's ground shadow (地面影).
    pub ground_shadow: bool,
    /// MMD's self-shadow (セルフ影), driven by the camera's self-shadow
    /// track (MMD's mode 1 without one); off forces it off.
    pub self_shadow: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            aspect: 0,
            custom: (1920, 1080),
            guides: false,
            skeleton_overlay: false,
            ground_shadow: true,
            self_shadow: true,
        }
    }
}

impl Settings {
    /// The output's width / height.
    pub fn aspect_ratio(&self) -> f32 {
        match ASPECTS.get(self.aspect) {
            Some((_, a)) => *a,
            None => self.custom.0.max(1) as f32 / self.custom.1.max(1) as f32,
        }
    }

    /// The output frame's name: its aspect (`16:9`) or size (`1920×1080`).
    pub fn label(&self) -> String {
        match ASPECTS.get(self.aspect) {
            Some((name, _)) => (*name).to_owned(),
            None => format!("{}×{}", self.custom.0, self.custom.1),
        }
    }
}
