//! Small input widgets the panels and dialogs share.

/// A number (a frame, a count) typed into a text field: any click into it (a hand that
/// moves a pixel while clicking included) puts the cursor there and typing
/// replaces or edits the number, which takes effect as it is typed (a
/// DragValue took typing only after a click without the smallest drag,
/// issue 38.10). `hover` also names the field for screen readers.
pub fn number_field(ui: &mut egui::Ui, value: &mut u32, hover: &str) {
    let id = ui.make_persistent_id(("number-field", hover));
    let editing = ui.memory(|m| m.has_focus(id));
    let mut text = if editing {
        ui.data(|d| d.get_temp::<String>(id))
            .unwrap_or_else(|| value.to_string())
    } else {
        value.to_string()
    };
    let r = ui.add(
        egui::TextEdit::singleline(&mut text)
            .id(id)
            .desired_width(64.0)
            .char_limit(10),
    );
    if r.gained_focus() {
        // The whole number selected: typing replaces it.
        if let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), id) {
            let all = egui::text::CCursorRange::two(
                egui::text::CCursor::new(0),
                egui::text::CCursor::new(text.chars().count()),
            );
            state.cursor.set_char_range(Some(all));
            state.store(ui.ctx(), id);
        }
    }
    if r.has_focus() {
        text.retain(|c| c.is_ascii_digit());
        if let Ok(v) = text.parse::<u32>() {
            *value = v.min(u32::MAX / 2);
        }
        ui.data_mut(|d| d.insert_temp(id, text));
    }
    r.on_hover_text(hover)
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::TextInput, true, hover));
}
