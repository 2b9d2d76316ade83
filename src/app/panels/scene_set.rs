//! The scene panel's set section: stages, props and accessories (Add
//! stage…, Add accessory…, show/hide, draw order, remove, an accessory's
//! placement as MMD's accessory panel shows it). Reads the workspace's
//! scene; returns [`SetAction`]s, each one undo step once applied.

use crate::app::scene_ops::SceneState;
use crate::scene::set::{
    AccessoryKey, AccessoryState, Background, BackgroundImage, BackgroundVideo, DrawOrder,
    ImageFit, Parent, Prop, SetAccessory,
};
use crate::workspace::Workspace;

/// A change to the set the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum SetAction {
    /// Pick stage or prop files.
    AddStage,
    /// Pick accessory files (.x, .vac).
    AddAccessory,
    RemoveProp(usize),
    ShowProp(usize, bool),
    PropOrder(usize, DrawOrder),
    RemoveAccessory(usize),
    SetAccessoryState(usize, Box<AccessoryState>),
    /// Sets (or replaces) the accessory's key at a scene frame.
    SetAccessoryKey(usize, Box<AccessoryKey>),
    RemoveAccessoryKey(usize, u32),
    /// Hand the accessory to the viewport's gizmo.
    MoveInView(usize),
    /// The background colour (RGB 0..1 as written to the picture).
    BackgroundColour([f32; 3]),
    /// Pick a background image file (PNG, BMP, TGA, JPEG).
    PickBackgroundImage,
    /// Pick a VMD for stage `n`'s own motion (its moving parts).
    PickPropMotion(usize),
    /// Stage `n` at rest again (its motion stays open as a file).
    ClearPropMotion(usize),
    /// Pick a background video file.
    PickBackgroundVideo,
    /// The background image and its fit, or none.
    BackgroundImage(Option<BackgroundImage>),
    /// The background video, or none.
    BackgroundVideo(Option<BackgroundVideo>),
    /// The background video's frame offset (scene frame of its first frame).
    BackgroundVideoOffset(i32),
}

/// Draws the set section into `ui`; returns what the user asked for.
pub fn ui(ui: &mut egui::Ui, ws: &Workspace, sc: &SceneState) -> Vec<SetAction> {
    let mut out = Vec::new();
    section(ui, ws, sc, &mut out);
    out
}

fn section(ui: &mut egui::Ui, ws: &Workspace, sc: &SceneState, out: &mut Vec<SetAction>) {
    use SetAction as Action;
    let set = &ws.scene().set;
    ui.horizontal_wrapped(|ui| {
        ui.strong("Set");
        if ui
            .small_button("Add stage…")
            .on_hover_text(
                "A stage or prop (PMX, PMD or .x) drawn around the models, no motion needed",
            )
            .clicked()
        {
            out.push(Action::AddStage);
        }
        if ui
            .small_button("Add accessory…")
            .on_hover_text(
                "A DirectX .x accessory, or a .vac placed (and attached to its bone) as it says",
            )
            .clicked()
        {
            out.push(Action::AddAccessory);
        }
    });
    for (i, p) in set.props.iter().enumerate() {
        let motion = p.motion.and_then(|id| ws.doc(id)).map(|d| d.title());
        prop_row(ui, sc, i, p, motion, out);
    }
    let frame = playhead_frame(ws);
    for (i, a) in set.accessories.iter().enumerate() {
        accessory_rows(ui, ws, sc, frame, i, a, out);
    }
    background_row(ui, set.background.colour, out);
    background_layers(ui, &set.background, out);
}

/// The background image (file, fit, Remove) and video (file, frame
/// offset, Remove), MMD's 背景画像 and 背景AVI.
fn background_layers(ui: &mut egui::Ui, bg: &Background, out: &mut Vec<SetAction>) {
    let name = |p: &std::path::Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    ui.horizontal_wrapped(|ui| {
        if ui
            .small_button("Image…")
            .on_hover_text("A picture behind everything, over the colour (MMD's 背景画像)")
            .clicked()
        {
            out.push(SetAction::PickBackgroundImage);
        }
        let Some(im) = &bg.image else {
            ui.weak("no image");
            return;
        };
        ui.label(name(&im.path))
            .on_hover_text(im.path.display().to_string());
        let mut fit = im.fit;
        egui::ComboBox::from_id_salt("background image fit")
            .selected_text(fit.label())
            .show_ui(ui, |ui| {
                for f in ImageFit::ALL {
                    ui.selectable_value(&mut fit, f, f.label());
                }
            })
            .response
            .on_hover_text(
                "Fit: the whole image, aspect kept, centred; Stretch: to the picture \
                 (MMD's way); Original size: its own pixels, centred",
            );
        if fit != im.fit {
            out.push(SetAction::BackgroundImage(Some(BackgroundImage {
                path: im.path.clone(),
                fit,
            })));
        }
        if ui
            .small_button("Remove image")
            .on_hover_text("No background image")
            .clicked()
        {
            out.push(SetAction::BackgroundImage(None));
        }
    });
    ui.horizontal_wrapped(|ui| {
        if ui
            .small_button("Video…")
            .on_hover_text(
                "A video behind everything, over the image, in step with the timeline \
                 (MMD's 背景AVI; read through ffmpeg)",
            )
            .clicked()
        {
            out.push(SetAction::PickBackgroundVideo);
        }
        let Some(v) = &bg.video else {
            ui.weak("no video");
            return;
        };
        ui.label(name(&v.path))
            .on_hover_text(v.path.display().to_string());
        ui.label("starts at frame");
        let mut offset = v.frame_offset;
        if ui
            .add(egui::DragValue::new(&mut offset).speed(0.25))
            .on_hover_text("The scene frame at which the video's first frame shows")
            .changed()
            && offset != v.frame_offset
        {
            out.push(SetAction::BackgroundVideoOffset(offset));
        }
        if ui
            .small_button("Remove video")
            .on_hover_text("No background video")
            .clicked()
        {
            out.push(SetAction::BackgroundVideo(None));
        }
    });
}

/// The background colour: a colour button (MMD's white by default), and
/// back to white.
fn background_row(ui: &mut egui::Ui, colour: [f32; 3], out: &mut Vec<SetAction>) {
    let white = crate::scene::set::Background::default().colour;
    ui.horizontal(|ui| {
        ui.label("Background");
        let mut srgb = colour.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        if ui
            .color_edit_button_srgb(&mut srgb)
            .on_hover_text("The colour behind everything, in the preview and every export")
            .changed()
        {
            out.push(SetAction::BackgroundColour(
                srgb.map(|c| f32::from(c) / 255.0),
            ));
        }
        if colour != white
            && ui
                .small_button("White")
                .on_hover_text("MMD's background")
                .clicked()
        {
            out.push(SetAction::BackgroundColour(white));
        }
    });
}

/// One stage or prop: shown, name, draw order, Remove.
/// One stage: shown, name, draw order, its own motion (`motion`: the
/// file's title) or Motion…, Remove.
fn prop_row(
    ui: &mut egui::Ui,
    sc: &SceneState,
    i: usize,
    p: &Prop<u64>,
    motion: Option<String>,
    out: &mut Vec<SetAction>,
) {
    use SetAction as Action;
    ui.horizontal(|ui| {
        let mut shown = p.shown;
        if ui
            .checkbox(&mut shown, "")
            .on_hover_text("Show or hide this stage")
            .changed()
        {
            out.push(Action::ShowProp(i, shown));
        }
        ui.label(&p.name).on_hover_text(format!(
            "{}{}",
            p.path.display(),
            loading_note(sc, &p.path)
        ));
        let after = p.order == DrawOrder::AfterModels;
        let text = if after {
            "after models"
        } else {
            "before models"
        };
        if ui
            .small_button(text)
            .on_hover_text("Draw order (MMD's accessory order): click to switch")
            .clicked()
        {
            let order = if after {
                DrawOrder::BeforeModels
            } else {
                DrawOrder::AfterModels
            };
            out.push(Action::PropOrder(i, order));
        }
        match motion {
            Some(title) => {
                ui.weak(title);
                if ui
                    .small_button("At rest")
                    .on_hover_text("Stop playing this motion on the stage (the file stays open)")
                    .clicked()
                {
                    out.push(Action::ClearPropMotion(i));
                }
            }
            None => {
                if ui
                    .small_button("Motion…")
                    .on_hover_text("A VMD that moves the stage's parts (gears, lights, screens)")
                    .clicked()
                {
                    out.push(Action::PickPropMotion(i));
                }
            }
        }
        if ui.small_button("Remove").clicked() {
            out.push(Action::RemoveProp(i));
        }
    });
}

/// One accessory: shown, name, parent, Remove; its keys; its placement.
/// Keyed, the rows show (and edit) the values played at the playhead
/// `frame` (MMD's panel: a key's own, or the blend between two), and a
/// change writes a key there.
fn accessory_rows(
    ui: &mut egui::Ui,
    ws: &Workspace,
    sc: &SceneState,
    frame: u32,
    i: usize,
    a: &SetAccessory,
    out: &mut Vec<SetAction>,
) {
    use SetAction as Action;
    let keyed = !a.keys.is_empty();
    let st = &a.state_at(frame);
    let change = |s: AccessoryState| {
        if keyed {
            Action::SetAccessoryKey(i, Box::new(AccessoryKey { frame, state: s }))
        } else {
            Action::SetAccessoryState(i, Box::new(s))
        }
    };
    ui.horizontal(|ui| {
        let mut shown = st.shown;
        if ui
            .checkbox(&mut shown, "")
            .on_hover_text("Show or hide this accessory")
            .changed()
        {
            out.push(change(AccessoryState {
                shown,
                ..st.clone()
            }));
        }
        ui.label(&a.name).on_hover_text(format!(
            "{}{}",
            a.path.display(),
            loading_note(sc, &a.path)
        ));
        let parent = match &st.parent {
            Parent::World => "world".to_owned(),
            Parent::Bone { actor, bone } => {
                let who = ws
                    .scene()
                    .actors
                    .get(*actor)
                    .map_or("a missing actor", |a| a.name.as_str());
                format!("{who} · {bone}")
            }
        };
        ui.weak(parent);
        if ui
            .small_button("Move in view")
            .on_hover_text("Move and turn it with the gizmo in the viewport (Esc: done)")
            .clicked()
        {
            out.push(Action::MoveInView(i));
        }
        if ui.small_button("Remove").clicked() {
            out.push(Action::RemoveAccessory(i));
        }
    });
    ui.horizontal(|ui| {
        if ui
            .small_button("Key accessory")
            .on_hover_text(format!(
                "Register these values as a key at frame {frame} (MMD's accessory 登録); \
                 between keys the accessory moves smoothly"
            ))
            .clicked()
        {
            out.push(Action::SetAccessoryKey(
                i,
                Box::new(AccessoryKey {
                    frame,
                    state: st.clone(),
                }),
            ));
        }
        if a.keys.iter().any(|k| k.frame == frame)
            && ui
                .small_button("Delete key")
                .on_hover_text(format!("Delete the key at frame {frame}"))
                .clicked()
        {
            out.push(Action::RemoveAccessoryKey(i, frame));
        }
        match a.keys.len() {
            0 => ui.weak("no keys: the values hold for the whole scene"),
            n => ui.weak(format!("{n} key(s); a change keys frame {frame}")),
        };
    });
    if let Some(new) = placement_ui(ui, i, st) {
        out.push(change(new));
    }
}

/// X/Y/Z, Rx/Ry/Rz, Si and Tr as drag fields; the changed state, if any.
fn placement_ui(ui: &mut egui::Ui, i: usize, st: &AccessoryState) -> Option<AccessoryState> {
    let mut s = st.clone();
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        for (label, v) in [
            ("X", &mut s.position.x),
            ("Y", &mut s.position.y),
            ("Z", &mut s.position.z),
        ] {
            ui.label(label);
            changed |= ui
                .add(egui::DragValue::new(v).speed(0.1).max_decimals(2))
                .on_hover_text(format!("accessory {} {label} (MMD units)", i + 1))
                .changed();
        }
        for (label, v) in [
            ("Rx", &mut s.rotation_degrees.x),
            ("Ry", &mut s.rotation_degrees.y),
            ("Rz", &mut s.rotation_degrees.z),
        ] {
            ui.label(label);
            changed |= ui
                .add(
                    egui::DragValue::new(v)
                        .speed(1.0)
                        .suffix("°")
                        .max_decimals(1),
                )
                .changed();
        }
        ui.label("Si");
        changed |= ui
            .add(
                egui::DragValue::new(&mut s.scale)
                    .speed(0.01)
                    .range(0.0..=1000.0)
                    .max_decimals(3),
            )
            .on_hover_text("Scale (1: the .x at MMD's size)")
            .changed();
        ui.label("Tr");
        changed |= ui
            .add(
                egui::DragValue::new(&mut s.opacity)
                    .speed(0.01)
                    .range(0.0..=1.0)
                    .max_decimals(2),
            )
            .on_hover_text("Opacity")
            .changed();
    });
    (changed && s != *st).then_some(s)
}

/// " (loading…)" while the file has not loaded (or could not).
fn loading_note(sc: &SceneState, path: &std::path::Path) -> &'static str {
    if sc.models.contains_key(path) {
        ""
    } else {
        " (not loaded: loading, or it could not be read)"
    }
}

/// The playhead as a whole scene frame (accessory keys sit on frames).
fn playhead_frame(ws: &Workspace) -> u32 {
    let f = ws.transport().frame;
    if f.is_finite() && f > 0.0 {
        f.round().min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}
