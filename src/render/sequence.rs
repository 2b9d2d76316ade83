//! Drawing a range of frames: the one loop behind `render` (a PNG sequence
//! or an MP4) and the app's File ▸ Export video…. Each picture is drawn and
//! read back on this thread; a video's pictures go to the encoder's writer
//! thread ([`VideoWriter`]) while the next one is drawn.

use std::path::{Path, PathBuf};

use super::stage::Stage;
use super::{OffscreenTarget, TextureRgba};
use crate::video::{PictureTimes, VideoError, VideoWriter};

/// Draws every picture of `times` in order and hands each to `each`
/// (picture index, scene frame, picture). Stops early, returning
/// `Ok(false)`, once `cancelled` says so; `Ok(true)` when all were drawn.
pub fn render_range(
    stage: &mut Stage,
    target: &OffscreenTarget,
    times: &PictureTimes,
    cancelled: &dyn Fn() -> bool,
    mut each: impl FnMut(u64, f64, TextureRgba) -> Result<(), String>,
) -> Result<bool, String> {
    for i in 0..times.count() {
        if cancelled() {
            return Ok(false);
        }
        let frame = times.frame(i);
        let img = stage
            .picture(target, frame)
            .map_err(|e| format!("frame {frame}: {e}"))?;
        each(i, frame, img)?;
    }
    Ok(true)
}

/// The PNG sequence: `00000.png`, `00001.png`, … in `dir` (created if
/// missing). `progress(done, total)` after each picture. Returns the number
/// written (fewer when cancelled).
pub fn write_pngs(
    stage: &mut Stage,
    target: &OffscreenTarget,
    times: &PictureTimes,
    dir: &Path,
    cancelled: &dyn Fn() -> bool,
    mut progress: impl FnMut(u64, u64),
) -> Result<u64, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let total = times.count();
    let mut done = 0;
    render_range(stage, target, times, cancelled, |i, _, img| {
        img.save_png(&dir.join(format!("{i:05}.png")))
            .map_err(|e| e.to_string())?;
        done = i + 1;
        progress(done, total);
        Ok(())
    })?;
    Ok(done)
}

/// The video: every picture of `times` through `writer` (started for the
/// same size and times), then ffmpeg finishes the file. Cancelled or
/// failed, nothing is left at the target (see [`VideoWriter`]).
pub fn write_video(
    stage: &mut Stage,
    target: &OffscreenTarget,
    times: &PictureTimes,
    mut writer: VideoWriter,
    cancelled: &dyn Fn() -> bool,
    mut progress: impl FnMut(u64, u64),
) -> Result<PathBuf, VideoError> {
    let total = times.count();
    let mut pushed: Result<(), VideoError> = Ok(());
    let all = render_range(stage, target, times, cancelled, |i, _, img| {
        if let Err(e) = writer.push(img.pixels) {
            let text = e.to_string();
            pushed = Err(e);
            return Err(text);
        }
        progress(i + 1, total);
        Ok(())
    });
    match (all, pushed) {
        (_, Err(e)) => Err(e),
        (Err(e), _) => Err(VideoError::Failed(e)),
        (Ok(false), _) => {
            writer.cancel();
            Err(VideoError::Cancelled)
        }
        (Ok(true), _) => writer.finish(),
    }
}
