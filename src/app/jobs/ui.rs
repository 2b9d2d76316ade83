//! The one progress display for every job: a bar per running job in the
//! status bar, with what it is doing and a Cancel button where cancelling
//! makes sense.

use std::time::Duration;

use super::{JobInfo, JobService};

/// Jobs shorter than this get no bar (a save, a small file), so the status
/// bar does not flicker.
const SHOW_AFTER: Duration = Duration::from_millis(250);

/// At most this many bars; the rest are counted.
const MAX_BARS: usize = 2;

/// The bar's text: "Loading m.pmx: texture 3 of 12 — 40%".
pub fn describe(j: &JobInfo) -> String {
    let mut t = j.label.clone();
    if !j.what.is_empty() {
        t.push_str(": ");
        t.push_str(&j.what);
    }
    if let Some(f) = j.fraction {
        t.push_str(&format!(" — {:.0}%", f * 100.0));
    }
    if j.cancel_requested {
        t.push_str(" (cancelling…)");
    }
    t
}

/// Draws the running jobs' progress bars; returns whether any is shown.
pub fn progress_ui(ui: &mut egui::Ui, jobs: &JobService) -> bool {
    let running: Vec<JobInfo> = jobs
        .running()
        .into_iter()
        .filter(|j| j.elapsed >= SHOW_AFTER)
        .collect();
    if running.is_empty() {
        if jobs.is_busy() {
            ui.ctx().request_repaint_after(SHOW_AFTER);
        }
        return false;
    }
    for j in running.iter().take(MAX_BARS) {
        let bar = match j.fraction {
            Some(f) => egui::ProgressBar::new(f),
            None => egui::ProgressBar::new(0.0).animate(true),
        };
        ui.add(bar.desired_width(220.0).text(describe(j)))
            .on_hover_text(format!(
                "{} ({:.1} s)",
                describe(j),
                j.elapsed.as_secs_f32()
            ));
        if j.cancellable
            && !j.cancel_requested
            && ui
                .small_button("Cancel")
                .on_hover_text(format!("Stop: {}", j.label))
                .clicked()
        {
            jobs.cancel(j.id);
        }
    }
    if running.len() > MAX_BARS {
        ui.weak(format!("+{} more", running.len() - MAX_BARS));
    }
    ui.separator();
    ui.ctx().request_repaint_after(Duration::from_millis(100));
    true
}
