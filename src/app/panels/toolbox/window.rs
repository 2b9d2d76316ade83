//! Drawing: the Tools menu, the side panel section and the open dialog.

use super::Tool;
use super::bake_physics;
use super::forms::{
    export_form, fill_form, import_form, join_form, rename_form, speed_form, summary_ui, trim_form,
};
use super::plan::start;
use super::scope_ui::scope_ui;
use super::simplify;
use super::sizing_ui;
use super::state::State;
use crate::app::panels::Shared;
use crate::workspace::document::Document;

/// The Tools menu.
pub fn menu(ui: &mut egui::Ui, state: &mut State) {
    for tool in Tool::ALL {
        if tool == Tool::ExportJson {
            ui.separator();
        }
        if ui
            .button(tool.menu_label())
            .on_hover_text(tool.tooltip())
            .clicked()
        {
            state.open_dialog(tool);
        }
    }
}

/// The toolbox side panel: a compact section with buttons opening the dialogs.
pub fn ui(ui: &mut egui::Ui, state: &mut State) {
    egui::CollapsingHeader::new("Toolbox")
        .id_salt("toolbox-section")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for tool in Tool::ALL {
                    let r = ui
                        .selectable_label(state.open == Some(tool), tool.button_label())
                        .on_hover_text(tool.tooltip());
                    if r.clicked() {
                        state.open_dialog(tool);
                    }
                }
            });
            if let Some(job) = &state.job {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak(&job.what);
                });
            }
        });
}

/// Draws the open dialog and polls the background job (once per frame).
pub fn windows(
    ctx: &egui::Context,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    state.poll(shared);
    if state.job.is_some()
        || state.speed.preview_job.is_running()
        || state.simplify.is_computing()
        || state.sizing.is_computing()
    {
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
    let Some(tool) = state.open else { return };
    let mut open = true;
    // Below the menu bar and tabs, centred, so it never hides the menus.
    let screen = ctx.content_rect();
    let shown = egui::Window::new(tool.title())
        .pivot(egui::Align2::CENTER_TOP)
        .default_pos(egui::pos2(screen.center().x, screen.top() + 90.0))
        .id(egui::Id::unique("toolbox-dialog"))
        .open(&mut open)
        .collapsible(false)
        // Its height follows what it shows (a report that arrives later
        // must not push the action button out of the window); long reports
        // scroll inside.
        .resizable([true, false])
        .default_width(380.0)
        .show(ctx, |ui| dialog(ui, tool, docs, active, shared, state));
    // A window takes its new height over the next frames: draw them now,
    // not at the next mouse move (a report arriving from a job would
    // otherwise stay cut off, its Apply button hidden).
    let size = shown.map(|r| r.response.rect.size());
    if size != state.dialog_size {
        state.dialog_size = size;
        ctx.request_repaint();
    }
    if !open {
        state.open = None;
    }
}

/// A dialog's body: parameters, action button, spinner, summary.
fn dialog(
    ui: &mut egui::Ui,
    tool: Tool,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    let Some(doc) = docs.get(active) else {
        if tool == Tool::ImportJson {
            import_form(ui, state);
        } else {
            ui.label("Open a file first.");
            return;
        }
        action_row(ui, tool, docs, active, shared, state, None);
        return;
    };
    // After Apply, Simplify and Size motion show their result until the
    // file changes.
    let settled = state.job.is_none() && state.request.is_none();
    if let Some(s) = state.summary.as_ref().filter(|s| !s.ok) {
        match s.tool {
            Tool::Simplify => state.simplify.applied = None,
            Tool::Sizing => state.sizing.applied = None,
            _ => {}
        }
    }
    let applied = match tool {
        Tool::Simplify => state.simplify.is_applied(doc, settled),
        Tool::Sizing => state.sizing.is_applied(doc, settled),
        _ => false,
    };
    file_picker(ui, docs, doc, state);
    ui.weak(tool.tooltip());
    ui.separator();
    match tool {
        Tool::Mirror => {
            ui.label("Bones, morphs, camera, light and IK entries are mirrored.");
            ui.label("Interpolation bytes are kept. Mirroring twice gives the original.");
            let offset = state.wearer_offset;
            scope_ui(
                ui,
                doc,
                &mut state.mirror.scope,
                shared.transport.loop_range,
                offset,
            );
            if state.mirror.scope.selected_bones {
                ui.weak("A bone mirrors with its 左⇄右 partner, so the two sides swap.");
            }
        }
        Tool::Trim => trim_form(ui, doc, &shared.transport.loop_range, state),
        Tool::Join => join_form(ui, docs, doc, state),
        Tool::Speed => speed_form(ui, doc, state, shared.transport.loop_range, &shared.jobs),
        Tool::FillRest => fill_form(ui, docs, doc, state),
        Tool::Rename => rename_form(ui, state),
        Tool::Simplify if applied => simplify::applied_ui(ui),
        Tool::Simplify => {
            let background = doc.motion.key_count() > state.background_keys;
            simplify::simplify_form(ui, doc, background, &mut state.simplify, &shared.jobs);
        }
        Tool::Bake => simplify::bake_form(ui, &mut state.bake, doc.motion.last_frame()),
        Tool::BakePhysics => {
            bake_physics::bake_physics_form(ui, doc, &shared.transport.loop_range, state);
        }
        Tool::Sizing if applied => sizing_ui::applied_ui(ui),
        Tool::Sizing => sizing_ui::sizing_form(ui, doc, docs, &mut state.sizing, &shared.jobs),
        Tool::ExportJson => export_form(ui, doc, state),
        Tool::ImportJson => import_form(ui, state),
    }
    ui.separator();
    let blocked = if applied {
        Some("Already applied to this file: undo, or change the file, to run it again".to_owned())
    } else if tool == Tool::BakePhysics {
        bake_physics::blocked(doc, state)
    } else if tool == Tool::Sizing {
        state.sizing.blocked()
    } else {
        None
    };
    action_row(ui, tool, docs, active, shared, state, blocked);
    if tool == Tool::BakePhysics
        && state
            .summary
            .as_ref()
            .is_some_and(|s| s.tool == tool && s.ok)
    {
        let settled = state.job.is_none() && state.request.is_none();
        bake_physics::offer_ui(ui, doc, settled, state);
    }
}

/// The file the dialog changes, with its key count; another open file can
/// be picked (the dialog keeps it whichever file becomes active).
fn file_picker(ui: &mut egui::Ui, docs: &[Document], doc: &Document, state: &mut State) {
    ui.horizontal(|ui| {
        let l = ui.label("File:");
        egui::ComboBox::from_id_salt("toolbox-target")
            .selected_text(doc.title())
            .show_ui(ui, |ui| {
                for d in docs {
                    if ui.selectable_label(d.id == doc.id, d.title()).clicked() {
                        state.target = Some(d.id);
                    }
                }
            })
            .response
            .labelled_by(l.id)
            .on_hover_text("The file this tool changes");
        ui.weak(format!("({} keys)", doc.motion.key_count()));
    });
}

fn action_row(
    ui: &mut egui::Ui,
    tool: Tool,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
    blocked: Option<String>,
) {
    ui.horizontal(|ui| {
        let busy = state.job.is_some();
        let can_run = blocked.is_none();
        let r = ui
            .add_enabled(!busy && can_run, egui::Button::new(tool.action_label()))
            .on_disabled_hover_text(blocked.unwrap_or_else(|| "Running…".to_owned()));
        if r.clicked() {
            if let Some(d) = docs.get(active) {
                match tool {
                    Tool::Simplify => state.simplify.mark_applied(d),
                    Tool::Sizing => state.sizing.mark_applied(d),
                    _ => {}
                }
            }
            start(tool, docs, active, shared, state);
        }
        if let Some(job) = &state.job {
            ui.spinner();
            ui.label(format!(
                "{} ({:.1} s)",
                job.what,
                job.started.elapsed().as_secs_f32()
            ));
            if ui
                .button("Stop")
                .on_hover_text("Cancel the run: nothing is changed")
                .clicked()
            {
                state.cancel(&shared.jobs);
            }
        }
    });
    if let Some(s) = &state.summary
        && s.tool == tool
    {
        summary_ui(ui, s);
    }
}
