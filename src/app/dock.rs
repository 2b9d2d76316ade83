//! The docked layout: every panel is a tile of an [`egui_tiles::Tree`]
//! that the user can resize, tab, move and close. This module owns the
//! tree (the default layout, the presets, reopening a closed panel, the
//! stored copy in the app's settings); what each tile draws is the shell's
//! (`layout.rs`).

use std::collections::BTreeMap;

use egui_tiles::{Container, Linear, LinearDir, Tile, TileId, Tiles, Tree};
use serde::{Deserialize, Serialize};

use super::CentralView;

/// One panel of the window: the content of one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Panel {
    /// The 3D preview (through the VMD camera or the free view).
    Viewport,
    /// A second 3D view beside the first (the free view while the first
    /// looks through the VMD camera), posed by the same engine.
    SecondView,
    /// The scene timeline (dope sheet, song lane, shots).
    Timeline,
    /// The scene: actors, camera, light, song.
    Scene,
    /// The active file's header and tracks.
    Inspector,
    /// The selected key's fields.
    KeyFields,
    /// The curve editor.
    Curves,
    /// The selected track's values over time, with its curve handles.
    ValueGraph,
    /// The toolbox (simplify, retime, bake …).
    Toolbox,
    /// The raw interpolation bytes.
    Forensics,
    /// The posing tool's controls and the camera's shot list (with each
    /// actor's bone binding): a tile of its own, never a column inside the
    /// picture.
    Shots,
}

impl Panel {
    /// Every panel, in the order the View menu lists them.
    pub const ALL: [Panel; 11] = [
        Panel::Viewport,
        Panel::SecondView,
        Panel::Timeline,
        Panel::Scene,
        Panel::Inspector,
        Panel::KeyFields,
        Panel::Curves,
        Panel::ValueGraph,
        Panel::Toolbox,
        Panel::Forensics,
        Panel::Shots,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Panel::Viewport => "Preview",
            Panel::SecondView => "View 2",
            Panel::Timeline => "Timeline",
            Panel::Scene => "Scene",
            Panel::Inspector => "Inspector",
            Panel::KeyFields => "Key fields",
            Panel::Curves => "Curves",
            Panel::ValueGraph => "Value graph",
            Panel::Toolbox => "Toolbox",
            Panel::Forensics => "Forensics",
            Panel::Shots => "Shots & posing",
        }
    }

    /// The panels it shares a tab group with in the default layout: where
    /// it goes back to when reopened.
    fn home(self) -> &'static [Panel] {
        match self {
            Panel::Viewport | Panel::Curves | Panel::ValueGraph | Panel::Forensics => &[
                Panel::Viewport,
                Panel::Curves,
                Panel::ValueGraph,
                Panel::Forensics,
            ],
            Panel::Timeline | Panel::SecondView => &[],
            Panel::Scene | Panel::Inspector => &[Panel::Scene, Panel::Inspector],
            Panel::KeyFields | Panel::Toolbox => &[Panel::KeyFields, Panel::Toolbox],
            Panel::Shots => &[Panel::Shots],
        }
    }
}

impl From<CentralView> for Panel {
    fn from(v: CentralView) -> Panel {
        match v {
            CentralView::Curves => Panel::Curves,
            CentralView::ValueGraph => Panel::ValueGraph,
            CentralView::Preview => Panel::Viewport,
            CentralView::Forensics => Panel::Forensics,
        }
    }
}

/// The layouts the View menu offers (each can be saved over).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Preset {
    /// Posing and keys: the default layout.
    Animate,
    /// Camera work: the VMD camera's picture and the free view side by
    /// side, the timeline under them.
    Camera,
    /// Curve work: the curve editor beside the picture.
    Curves,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Animate, Preset::Camera, Preset::Curves];

    pub fn label(self) -> &'static str {
        match self {
            Preset::Animate => "Animate",
            Preset::Camera => "Camera",
            Preset::Curves => "Curves",
        }
    }
}

/// The id every layout tree is shown under.
fn tree_id() -> egui::Id {
    egui::Id::unique("vmd-studio-dock")
}

/// Side lengths (points) of the default layout for a dock area of `size`:
/// the right-hand column's width and the timeline's height.
///
/// Both side groups share one column on the right: with a second column
/// on the left, the picture cannot keep 45 % of a 1280×720 window and
/// leave the timeline more than a strip.
fn default_sizes(size: egui::Vec2) -> (f32, f32) {
    let right = (size.x * 0.22).clamp(280.0, 420.0).min(size.x * 0.45);
    let timeline = (size.y * 0.26).clamp(150.0, 250.0).min(size.y * 0.45);
    (right, timeline)
}

/// Points a tile spends around a 16:9 picture through the camera: its tab
/// bar, the view's toolbar and margins.
const PICTURE_CHROME: f32 = 56.0;

/// The share of the window the picture through the camera is given in
/// the default layouts (issue 38: at least 40 %).
const PICTURE_SHARE: f32 = 0.43;

/// The left column's width and the picture tile's height of the
/// picture-first layouts (Animate, Camera) for a dock area of `size`: the
/// 16:9 picture gets [`PICTURE_SHARE`] of the window (the dock area and
/// about 70 points of menus and status bar), the left column what is
/// left but at least 30 % of the width, the tabs under the picture at
/// least 124 points (a 100-point panel under its tab bar) and 22 % of the
/// height where the picture leaves that much.
fn picture_first_sizes(size: egui::Vec2) -> (f32, f32) {
    let window = size.x * (size.y + 70.0);
    let mut w = (PICTURE_SHARE * window * 16.0 / 9.0).sqrt();
    // Room for the left column and for the tabs under the picture.
    w = w
        .min(size.x * 0.7 - 8.0)
        .min((size.y - 124.0 - PICTURE_CHROME) * 16.0 / 9.0)
        .max(1.0);
    let tile_w = w + 8.0;
    let left_w = (size.x - tile_w).max(1.0);
    // A tall window gives the picture's tile the height the picture does
    // not need (the free view fills it), keeping a quarter for the tabs.
    let roomy = size.y - (size.y * 0.22).max(124.0);
    (left_w, (w * 9.0 / 16.0 + PICTURE_CHROME).max(roomy))
}

/// The scene panel's height above the timeline in the Animate layout: a
/// third of the column, 160–320 points.
fn scene_height(size: egui::Vec2) -> f32 {
    (size.y / 3.0).clamp(160.0, 320.0).min(size.y * 0.45)
}

/// A linear split of `children` with the given sizes (points or any
/// proportional numbers).
fn linear(tiles: &mut Tiles<Panel>, dir: LinearDir, children: &[(TileId, f32)]) -> TileId {
    let mut l = Linear::new(dir, children.iter().map(|(id, _)| *id).collect());
    for (id, share) in children {
        l.shares.set_share(*id, share.max(1.0));
    }
    tiles.insert_container(Container::Linear(l))
}

/// A tab group of `panels`, the first active.
fn tabs(tiles: &mut Tiles<Panel>, panels: &[Panel]) -> TileId {
    let ids: Vec<TileId> = panels.iter().map(|p| tiles.insert_pane(*p)).collect();
    tiles.insert_tab_tile(ids)
}

/// The layout of `preset` for a dock area of `size` points.
pub fn preset_tree(preset: Preset, size: egui::Vec2) -> Tree<Panel> {
    let (right_w, timeline_h) = default_sizes(size);
    let side_w = (size.x - right_w).max(1.0);
    let mut tiles = Tiles::default();
    let root = match preset {
        Preset::Animate => {
            // MMD's arrangement: the timeline a tall column on the left
            // (under the scene panel), the picture beside it as large as
            // 16:9 allows, the key fields, shots and tools under it.
            let (left_w, picture_h) = picture_first_sizes(size);
            let scene = tabs(&mut tiles, &[Panel::Scene, Panel::Inspector]);
            let timeline = tabs(&mut tiles, &[Panel::Timeline]);
            let left = linear(
                &mut tiles,
                LinearDir::Vertical,
                &[
                    (scene, scene_height(size)),
                    (timeline, (size.y - scene_height(size)).max(1.0)),
                ],
            );
            let centre = tabs(
                &mut tiles,
                &[
                    Panel::Viewport,
                    Panel::Curves,
                    Panel::ValueGraph,
                    Panel::Forensics,
                ],
            );
            // Side by side, as MMD's bone and key panels: both in view.
            let shots = tabs(&mut tiles, &[Panel::Shots]);
            let keys = tabs(&mut tiles, &[Panel::KeyFields, Panel::Toolbox]);
            let under = linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(shots, 0.4), (keys, 0.6)],
            );
            let right = linear(
                &mut tiles,
                LinearDir::Vertical,
                &[(centre, picture_h), (under, (size.y - picture_h).max(1.0))],
            );
            linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(left, left_w), (right, (size.x - left_w).max(1.0))],
            )
        }
        Preset::Camera => {
            // The camera's picture and the free view side by side over the
            // timeline; the shots, the scene and key fields beside them.
            let view = tabs(&mut tiles, &[Panel::Viewport, Panel::Forensics]);
            let free = tabs(&mut tiles, &[Panel::SecondView]);
            let views = linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(view, 0.5), (free, 0.5)],
            );
            let timeline = tabs(
                &mut tiles,
                &[Panel::Timeline, Panel::Curves, Panel::ValueGraph],
            );
            let left = linear(
                &mut tiles,
                LinearDir::Vertical,
                &[(views, size.y - timeline_h), (timeline, timeline_h)],
            );
            let scene = tabs(
                &mut tiles,
                &[
                    Panel::Shots,
                    Panel::Scene,
                    Panel::KeyFields,
                    Panel::Inspector,
                    Panel::Toolbox,
                ],
            );
            linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(left, side_w), (scene, right_w)],
            )
        }
        Preset::Curves => {
            // The curve editor beside the picture, the timeline under both.
            let view = tabs(&mut tiles, &[Panel::Viewport]);
            let curves = tabs(
                &mut tiles,
                &[Panel::Curves, Panel::ValueGraph, Panel::Forensics],
            );
            let top = linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(view, side_w * 0.55), (curves, side_w * 0.45)],
            );
            let timeline = tabs(&mut tiles, &[Panel::Timeline]);
            let left = linear(
                &mut tiles,
                LinearDir::Vertical,
                &[(top, size.y - timeline_h), (timeline, timeline_h)],
            );
            let right = tabs(
                &mut tiles,
                &[
                    Panel::KeyFields,
                    Panel::Scene,
                    Panel::Shots,
                    Panel::Inspector,
                    Panel::Toolbox,
                ],
            );
            linear(
                &mut tiles,
                LinearDir::Horizontal,
                &[(left, side_w), (right, right_w)],
            )
        }
    };
    Tree::new(tree_id(), root, tiles)
}

/// Why a stored layout cannot be used.
fn check(tree: &Tree<Panel>) -> Result<(), String> {
    let Some(root) = tree.root else {
        return Err("it has no tiles".into());
    };
    let mut seen = std::collections::HashSet::new();
    let mut panels = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            return Err(format!("tile {} appears twice", id.0));
        }
        match tree.tiles.get(id) {
            None => return Err(format!("tile {} is missing", id.0)),
            Some(Tile::Pane(p)) => {
                if !panels.insert(*p) {
                    return Err(format!("{} appears twice", p.title()));
                }
            }
            Some(Tile::Container(c)) => stack.extend(c.children().copied()),
        }
    }
    Ok(())
}

/// What is kept in the app's settings.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    tree: Tree<Panel>,
    /// Presets the user saved over.
    #[serde(default)]
    presets: BTreeMap<Preset, Tree<Panel>>,
}

/// The settings key of the layout.
pub const SETTINGS_KEY: &str = "vmd-studio-layout";

/// The docked layout.
#[derive(Debug, Default)]
pub struct Dock {
    /// The tree; `None` until the first frame builds the default for the
    /// window's size (and after View ▸ Reset layout).
    pub tree: Option<Tree<Panel>>,
    /// Presets the user saved over (the built-in ones otherwise).
    pub presets: BTreeMap<Preset, Tree<Panel>>,
    /// A preset to apply at the next frame (its layout needs the size).
    pending_preset: Option<Preset>,
    /// The centre view last brought to the front (see [`Dock::follow`]).
    followed: Option<CentralView>,
    /// The timeline's open state last followed.
    followed_timeline: Option<bool>,
    /// A note for the status bar (a stored layout that could not be read).
    pub message: Option<String>,
}

impl Dock {
    /// Makes sure there is a tree for a dock area of `size`: the stored or
    /// current one, a preset asked for, or the default.
    pub fn prepare(&mut self, size: egui::Vec2) {
        if let Some(p) = self.pending_preset.take() {
            self.tree = Some(
                self.presets
                    .get(&p)
                    .cloned()
                    .unwrap_or_else(|| preset_tree(p, size)),
            );
        }
        if self.tree.is_none() {
            self.tree = Some(preset_tree(Preset::Animate, size));
        }
    }

    /// Back to the default layout (at the next frame).
    pub fn reset(&mut self) {
        self.tree = None;
        self.pending_preset = None;
        self.followed = None;
        self.followed_timeline = None;
    }

    /// Switches to `preset` (the user's saved copy if there is one).
    pub fn use_preset(&mut self, preset: Preset) {
        self.pending_preset = Some(preset);
        self.followed = None;
        self.followed_timeline = None;
    }

    /// Keeps the current layout as `preset`.
    pub fn save_preset(&mut self, preset: Preset) {
        if let Some(t) = &self.tree {
            self.presets.insert(preset, t.clone());
        }
    }

    /// Forgets the user's copy of `preset`.
    pub fn restore_preset(&mut self, preset: Preset) {
        self.presets.remove(&preset);
    }

    /// The tile showing `panel`, if it is in the layout.
    pub fn tile_of(&self, panel: Panel) -> Option<TileId> {
        self.tree.as_ref()?.tiles.find_pane(&panel)
    }

    /// Whether `panel` is in the layout.
    pub fn is_open(&self, panel: Panel) -> bool {
        self.tile_of(panel).is_some()
    }

    /// Where `panel` was drawn in the last frame (points), if it was.
    pub fn rect_of(&self, panel: Panel) -> Option<egui::Rect> {
        let tree = self.tree.as_ref()?;
        let id = tree.tiles.find_pane(&panel)?;
        if !tree.is_visible(id) || !tree.active_tiles().contains(&id) {
            return None;
        }
        tree.tiles.rect(id)
    }

    /// Brings the centre view the app asks for to the front whenever it
    /// changes (View ▸ Curve editor / Preview / Forensics, F2–F4, opening
    /// a model), reopening it if it was closed.
    pub fn follow(&mut self, central: CentralView) {
        if self.followed != Some(central) && self.tree.is_some() {
            self.followed = Some(central);
            self.show(central.into());
        }
    }

    /// Opens `panel` (back in its default tab group, or beside the rest)
    /// and brings it to the front.
    pub fn show(&mut self, panel: Panel) {
        let Some(tree) = &mut self.tree else {
            return;
        };
        if tree.tiles.find_pane(&panel).is_none() {
            insert(tree, panel);
        }
        if let Some(id) = tree.tiles.find_pane(&panel) {
            tree.set_visible(id, true);
        }
        tree.make_active(|_, t| matches!(t, Tile::Pane(p) if *p == panel));
    }

    /// Closes `panel` if it is open, opens it otherwise.
    pub fn toggle(&mut self, panel: Panel) {
        let Some(tree) = &mut self.tree else {
            return;
        };
        match tree.tiles.find_pane(&panel) {
            Some(id) => {
                tree.remove_recursively(id);
            }
            None => self.show(panel),
        }
    }

    /// Gives `panel`'s tab group `fraction` (0..1) of the row or column it
    /// shares with its neighbours, the rest keeping their proportions.
    pub fn set_fraction(&mut self, panel: Panel, fraction: f32) {
        let Some(tree) = &mut self.tree else {
            return;
        };
        let Some(pane) = tree.tiles.find_pane(&panel) else {
            return;
        };
        let group = tree.tiles.parent_of(pane).unwrap_or(pane);
        let Some(parent) = tree.tiles.parent_of(group) else {
            return;
        };
        if let Some(Tile::Container(Container::Linear(l))) = tree.tiles.get_mut(parent) {
            let f = if fraction.is_finite() {
                fraction.clamp(0.05, 0.95)
            } else {
                return;
            };
            let others: f32 = l
                .children
                .iter()
                .filter(|c| **c != group)
                .map(|c| l.shares[*c])
                .sum();
            let rest = l.children.len().saturating_sub(1).max(1) as f32;
            let others = if others > 0.0 { others } else { rest };
            // share / (share + others) = f
            l.shares.set_share(group, others * f / (1.0 - f));
        }
    }

    /// Opens or closes the timeline whenever the app's wish changes
    /// (View ▸ Dope sheet, F1).
    pub fn follow_timeline(&mut self, open: bool) {
        if self.followed_timeline != Some(open) && self.tree.is_some() {
            self.followed_timeline = Some(open);
            if self.is_open(Panel::Timeline) != open {
                self.toggle(Panel::Timeline);
            }
        }
    }

    /// Notes whether the timeline is open after the user's clicks (its
    /// tab's close button), so that F1 opens it again.
    pub fn note_timeline(&mut self) -> bool {
        let open = self.is_open(Panel::Timeline);
        self.followed_timeline = Some(open);
        open
    }

    /// Writes the layout and the saved presets to the app's settings.
    pub fn persist(&self, storage: &mut dyn eframe::Storage) {
        let Some(tree) = &self.tree else {
            // Reset and not yet drawn: forget the stored layout.
            storage.remove_string(SETTINGS_KEY);
            return;
        };
        let stored = Stored {
            tree: tree.clone(),
            presets: self.presets.clone(),
        };
        match serde_json::to_string(&stored) {
            Ok(s) => storage.set_string(SETTINGS_KEY, s),
            Err(e) => tracing::warn!("layout not saved: {e}"),
        }
    }

    /// Reads the layout from the app's settings; a layout that cannot be
    /// read or used leaves the default with a note for the status bar.
    pub fn restore(&mut self, storage: &dyn eframe::Storage) {
        let Some(text) = storage.get_string(SETTINGS_KEY) else {
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        let stored = serde_json::from_str::<Stored>(&text)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                check(&s.tree)?;
                Ok(s)
            });
        match stored {
            Ok(s) => {
                self.tree = Some(s.tree);
                self.presets = s
                    .presets
                    .into_iter()
                    .filter(|(_, t)| check(t).is_ok())
                    .collect();
            }
            Err(e) => {
                self.message = Some(format!(
                    "The saved window layout could not be used ({e}); the default layout is shown"
                ));
            }
        }
    }
}

/// Puts `panel` into `tree`: as a tab beside a panel of its default group
/// if one is open, else beside the timeline's column, else as a new tab
/// group at the root.
fn insert(tree: &mut Tree<Panel>, panel: Panel) {
    let sibling = panel
        .home()
        .iter()
        .filter(|p| **p != panel)
        .find_map(|p| tree.tiles.find_pane(p));
    let new = tree.tiles.insert_pane(panel);
    // The second view goes beside the first.
    if panel == Panel::SecondView
        && let Some(view) = tree.tiles.find_pane(&Panel::Viewport)
    {
        let group = tree.tiles.parent_of(view).unwrap_or(view);
        let second = tree.tiles.insert_tab_tile(vec![new]);
        let parent = tree.tiles.parent_of(group);
        let row = Linear::new(LinearDir::Horizontal, vec![group, second]);
        let row = tree.tiles.insert_container(Container::Linear(row));
        match parent.and_then(|p| tree.tiles.get_mut(p)) {
            Some(Tile::Container(c)) => {
                let _ = c.replace_child(group, row);
            }
            _ => tree.root = Some(row),
        }
        return;
    }
    // The timeline goes back under the picture.
    if panel == Panel::Timeline
        && let Some(view) = tree.tiles.find_pane(&Panel::Viewport)
    {
        let group = tree.tiles.parent_of(view).unwrap_or(view);
        let timeline = tree.tiles.insert_tab_tile(vec![new]);
        let parent = tree.tiles.parent_of(group);
        let mut column = Linear::new(LinearDir::Vertical, vec![group, timeline]);
        column.shares.set_share(group, 3.0);
        column.shares.set_share(timeline, 1.0);
        let column = tree.tiles.insert_container(Container::Linear(column));
        match parent.and_then(|p| tree.tiles.get_mut(p)) {
            Some(Tile::Container(c)) => {
                let _ = c.replace_child(group, column);
            }
            _ => tree.root = Some(column),
        }
        return;
    }
    if let Some(s) = sibling
        && let Some(parent) = tree.tiles.parent_of(s)
        && let Some(Tile::Container(Container::Tabs(t))) = tree.tiles.get_mut(parent)
    {
        t.add_child(new);
        t.set_active(new);
        return;
    }
    let group = tree.tiles.insert_tab_tile(vec![new]);
    match tree.root {
        Some(root) => match tree.tiles.get_mut(root) {
            Some(Tile::Container(Container::Linear(l))) => l.add_child(group),
            _ => {
                let r = tree.tiles.insert_vertical_tile(vec![root, group]);
                tree.root = Some(r);
            }
        },
        None => tree.root = Some(group),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_holds_every_panel_once() {
        for p in Preset::ALL {
            let t = preset_tree(p, egui::vec2(1280.0, 650.0));
            assert_eq!(check(&t), Ok(()), "{p:?}");
            for panel in Panel::ALL {
                // The second view only in the Camera preset.
                let want = panel != Panel::SecondView || p == Preset::Camera;
                assert_eq!(
                    t.tiles.find_pane(&panel).is_some(),
                    want,
                    "{p:?}: {panel:?}"
                );
            }
        }
    }

    #[test]
    fn the_second_view_opens_beside_the_first() {
        let mut d = Dock {
            tree: Some(preset_tree(Preset::Animate, egui::vec2(1280.0, 650.0))),
            ..Default::default()
        };
        d.show(Panel::SecondView);
        let tree = d.tree.as_ref().unwrap();
        assert_eq!(check(tree), Ok(()));
        let a = tree.tiles.find_pane(&Panel::Viewport).unwrap();
        let b = tree.tiles.find_pane(&Panel::SecondView).unwrap();
        let ga = tree.tiles.parent_of(a).unwrap();
        let gb = tree.tiles.parent_of(b).unwrap();
        assert_ne!(ga, gb, "not tabs of one group: both on screen");
        let row = tree.tiles.parent_of(ga).unwrap();
        assert_eq!(tree.tiles.parent_of(gb), Some(row));
        assert!(matches!(
            tree.tiles.get(row),
            Some(Tile::Container(Container::Linear(l))) if l.dir == LinearDir::Horizontal
        ));
    }

    #[test]
    fn a_closed_panel_comes_back_in_its_group() {
        let mut d = Dock {
            tree: Some(preset_tree(Preset::Animate, egui::vec2(1280.0, 650.0))),
            ..Default::default()
        };
        d.toggle(Panel::Inspector);
        assert!(!d.is_open(Panel::Inspector));
        d.toggle(Panel::Inspector);
        let tree = d.tree.as_ref().unwrap();
        let a = tree.tiles.find_pane(&Panel::Inspector).unwrap();
        let b = tree.tiles.find_pane(&Panel::Scene).unwrap();
        assert_eq!(tree.tiles.parent_of(a), tree.tiles.parent_of(b));
        assert_eq!(check(tree), Ok(()));
    }

    #[test]
    fn a_broken_tree_is_refused() {
        let mut t = preset_tree(Preset::Animate, egui::vec2(1280.0, 650.0));
        let id = t.tiles.find_pane(&Panel::Scene).unwrap();
        t.tiles.remove(id);
        assert!(check(&t).unwrap_err().contains("missing"));
        let empty: Tree<Panel> = Tree::empty(tree_id());
        assert!(check(&empty).is_err());
    }
}
