//! The scene's song in the app: decoding and beat analysis off the UI
//! thread with progress, the beat grid and the user's corrections to it
//! (tap tempo, dragging a beat, choosing the downbeat), snapping frames to
//! beats, and keeping the sound and the transport together.
//!
//! While the sound device plays, the transport's playhead is taken from the
//! device clock ([`SoundOutput::heard_position`]); without a device the
//! transport runs on the system clock and the status bar says why there is
//! no sound.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::jobs::{JobKind, JobService, Lane, Polled};
use super::sound::{SoundOutput, SoundStatus};
use crate::audio::{AudioError, BeatGrid, Song, SongTiming, estimate_beats};
use crate::progress::Progress;
use crate::workspace::Transport;

/// File extensions the song loader takes.
pub use crate::workspace::files::SONG_EXTENSIONS;

/// Whether a path looks like a song (by extension).
pub fn is_song_path(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SONG_EXTENSIONS.iter().any(|s| s.eq_ignore_ascii_case(e)))
}

enum LoadMsg {
    Decoded(Result<Arc<Song>, AudioError>),
    Beats(Result<Option<crate::audio::BeatEstimate>, AudioError>),
}

/// A load in flight: decoding, then finding beats, one job each on the
/// song's lane of the job service.
struct Loading {
    path: PathBuf,
    /// The running job's progress (the decoder's or the beat finder's).
    progress: Arc<Progress>,
    /// The decoded song, once it is (beats still being found).
    decoded: bool,
}

/// A tap of tap tempo: song time (seconds) and when it was tapped.
#[derive(Debug, Clone, Copy)]
struct Tap {
    song_seconds: f64,
    at: Instant,
}

/// Taps further apart than this start a new tap sequence.
const TAP_RESET_SECONDS: f64 = 2.0;

/// The song, its grid and its sound.
pub struct SongState {
    pub path: Option<PathBuf>,
    pub song: Option<Arc<Song>>,
    /// Scene frame at which the song's first sample sounds.
    pub offset_frames: i32,
    /// The beat grid (estimated, or corrected by the user).
    pub grid: Option<BeatGrid>,
    /// The estimate's share of beats on an onset, 0..1 (None once corrected).
    pub confidence: Option<f64>,
    /// Snap key moves, pastes and new cuts to beats.
    pub snap_to_beats: bool,
    pub volume: f32,
    pub muted: bool,
    loading: Option<Loading>,
    /// The current song job; results of replaced loads are dropped.
    lane: Lane<LoadMsg>,
    taps: Vec<Tap>,
    sound: Option<SoundOutput>,
    /// What the mixer was last told (to notice seeks and scrubs).
    last_frame: f64,
    last_playing: bool,
    last_loop: Option<(f64, f64)>,
    /// Offset to give the song being loaded once it decodes.
    pending_offset: Option<i32>,
    /// The last song path asked for (loaded, loading or failed), so a
    /// broken file is not retried every frame.
    requested: Option<PathBuf>,
    /// When `sync` last ran (to tell a seek from the transport moving on).
    last_sync: Option<Instant>,
    /// Messages for the status bar, taken by the app: (text, is_error).
    pub messages: Vec<(String, bool)>,
}

impl Default for SongState {
    fn default() -> Self {
        SongState {
            path: None,
            song: None,
            offset_frames: 0,
            grid: None,
            confidence: None,
            snap_to_beats: false,
            volume: 1.0,
            muted: false,
            loading: None,
            lane: Lane::default(),
            taps: Vec::new(),
            sound: None,
            last_frame: f64::NAN,
            last_playing: false,
            last_loop: None,
            pending_offset: None,
            requested: None,
            last_sync: None,
            messages: Vec::new(),
        }
    }
}

impl std::fmt::Debug for SongState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SongState")
            .field("path", &self.path)
            .field("offset_frames", &self.offset_frames)
            .field("grid", &self.grid)
            .field("loading", &self.loading.as_ref().map(|l| &l.path))
            .finish_non_exhaustive()
    }
}

impl SongState {
    /// Starts loading a song in the background. The current song stays
    /// until the new one has decoded; a broken file changes nothing.
    pub fn load(&mut self, path: PathBuf, offset_frames: i32, jobs: &JobService) {
        self.cancel_load();
        let progress = Progress::new();
        let p = Arc::clone(&progress);
        let file = path.clone();
        self.lane.start(
            jobs,
            JobKind::Song,
            format!("Song {}", file_name(&path)),
            true,
            move |ctx| {
                ctx.follow(p.clone(), "decoding");
                LoadMsg::Decoded(Song::load(&file, &p).map(Arc::new))
            },
        );
        self.pending_offset = Some(offset_frames);
        self.requested = Some(path.clone());
        self.loading = Some(Loading {
            path,
            progress,
            decoded: false,
        });
    }

    /// Finds the beats of a decoded song (the load's second job).
    fn find_beats(&mut self, song: Arc<Song>, jobs: &JobService) {
        let Some(l) = &mut self.loading else { return };
        let progress = Progress::new();
        l.progress = Arc::clone(&progress);
        l.decoded = true;
        let label = format!("Song {}", file_name(&l.path));
        self.lane
            .start(jobs, JobKind::Song, label, true, move |ctx| {
                ctx.follow(progress.clone(), "finding beats");
                LoadMsg::Beats(estimate_beats(&song.pcm, &progress))
            });
    }

    /// Whether a song is decoding or being analysed; its progress 0..1 and
    /// what is being done.
    pub fn loading(&self) -> Option<(f32, &'static str, &Path)> {
        self.loading.as_ref().map(|l| {
            let what = if l.decoded {
                "finding beats"
            } else {
                "decoding"
            };
            (l.progress.fraction(), what, l.path.as_path())
        })
    }

    /// The last song path asked for (loaded, loading or failed).
    pub fn requested(&self) -> Option<&Path> {
        self.requested.as_deref()
    }

    /// Cancels a load in flight (its result, if it still comes, is stale).
    pub fn cancel_load(&mut self) {
        if let Some(l) = self.loading.take() {
            l.progress.cancel();
        }
        self.lane.forget();
    }

    /// Takes finished work from the loader. Returns true when something
    /// changed (a song arrived, or its beats).
    pub fn poll(&mut self, jobs: &JobService) -> bool {
        let mut changed = false;
        loop {
            let Some(l) = &mut self.loading else {
                return changed;
            };
            let msg = match self.lane.poll(jobs) {
                Some(Polled::Done(f)) => f.value,
                None => return changed,
                Some(Polled::Lost(_)) => {
                    let path = l.path.clone();
                    self.loading = None;
                    self.messages.push((
                        format!(
                            "Song not loaded: {} (the decoder stopped)",
                            file_name(&path)
                        ),
                        true,
                    ));
                    return true;
                }
            };
            changed = true;
            match msg {
                LoadMsg::Decoded(Ok(song)) => {
                    let path = l.path.clone();
                    self.install(path, Arc::clone(&song));
                    self.find_beats(song, jobs);
                }
                LoadMsg::Decoded(Err(e)) => {
                    let path = l.path.clone();
                    self.loading = None;
                    if !matches!(e, AudioError::Cancelled) {
                        self.messages
                            .push((format!("Song not loaded: {} ({e})", file_name(&path)), true));
                    }
                }
                LoadMsg::Beats(r) => {
                    self.loading = None;
                    match r {
                        Ok(Some(est)) => {
                            self.grid = Some(est.grid);
                            self.confidence = Some(est.confidence);
                            self.messages.push((
                                format!(
                                    "Beat grid: {:.2} BPM, first beat at {:.3} s ({:.0}% of beats on an onset)",
                                    est.grid.bpm,
                                    est.grid.first_beat_seconds,
                                    est.confidence * 100.0
                                ),
                                false,
                            ));
                        }
                        Ok(None) => self.messages.push((
                            "No steady beat found in the song: tap the tempo (T over the song lane) to make a grid".into(),
                            false,
                        )),
                        Err(AudioError::Cancelled) => {}
                        Err(e) => self.messages.push((format!("Beat analysis failed: {e}"), true)),
                    }
                }
            }
        }
    }

    /// Makes a decoded song current.
    fn install(&mut self, path: PathBuf, song: Arc<Song>) {
        let secs = song.pcm.duration_seconds();
        let rate = song.pcm.sample_rate();
        self.offset_frames = self.pending_offset.take().unwrap_or(0);
        self.grid = None;
        self.confidence = None;
        self.taps.clear();
        let sound = self.sound.get_or_insert_with(SoundOutput::open);
        sound.set_song(Some(Arc::new(song.pcm.clone())));
        self.song = Some(song);
        self.path = Some(path.clone());
        self.last_playing = false;
        self.messages.push((
            format!(
                "Song: {} ({}:{:04.1}, {} Hz)",
                file_name(&path),
                (secs / 60.0).floor(),
                secs % 60.0,
                rate
            ),
            false,
        ));
        if let Some(SoundStatus::Silent(why)) = self.sound.as_ref().map(|s| s.status().clone()) {
            self.messages.push((format!("No sound: {why}"), false));
        }
    }

    /// Installs an already decoded song (tests, or a song made in memory).
    pub fn set_song(&mut self, path: PathBuf, song: Arc<Song>, offset_frames: i32) {
        self.cancel_load();
        self.pending_offset = Some(offset_frames);
        self.requested = Some(path.clone());
        self.install(path, song);
    }

    /// Removes the song.
    pub fn clear(&mut self) {
        self.cancel_load();
        if let Some(s) = &self.sound {
            s.set_song(None);
        }
        *self = SongState {
            sound: self.sound.take(),
            snap_to_beats: self.snap_to_beats,
            volume: self.volume,
            muted: self.muted,
            messages: std::mem::take(&mut self.messages),
            ..SongState::default()
        };
    }

    /// Uses `sound` as the output (tests pass a silent one).
    pub fn set_sound(&mut self, sound: SoundOutput) {
        if let Some(song) = &self.song {
            sound.set_song(Some(Arc::new(song.pcm.clone())));
        }
        self.sound = Some(sound);
    }

    /// Why there is no sound, when there is a song and none can be heard.
    pub fn no_sound_reason(&self) -> Option<String> {
        self.song.as_ref()?;
        match self.sound.as_ref().map(SoundOutput::status) {
            Some(SoundStatus::Ready { .. }) => None,
            Some(SoundStatus::Silent(why)) => Some(why.clone()),
            None => Some("no sound output opened".into()),
        }
    }

    /// The output device's name while sound is on.
    pub fn device_name(&self) -> Option<&str> {
        match self.sound.as_ref().map(SoundOutput::status) {
            Some(SoundStatus::Ready { device }) => Some(device),
            _ => None,
        }
    }

    pub fn timing(&self) -> Option<SongTiming> {
        self.song
            .as_ref()
            .map(|s| SongTiming::new(s.pcm.sample_rate(), i64::from(self.offset_frames)))
    }

    /// Scene frame of song time `seconds`.
    pub fn frame_of_seconds(&self, seconds: f64) -> f64 {
        f64::from(self.offset_frames) + seconds * 30.0
    }

    /// Song time (seconds) at scene frame `frame`.
    pub fn seconds_of_frame(&self, frame: f64) -> f64 {
        (frame - f64::from(self.offset_frames)) / 30.0
    }

    /// The beat nearest to scene frame `frame`, as a scene frame (fractional).
    pub fn nearest_beat_frame(&self, frame: f64) -> Option<f64> {
        let g = self.grid?;
        let (_, t) = g.nearest_beat(self.seconds_of_frame(frame));
        Some(self.frame_of_seconds(t))
    }

    /// Frames from `frame` to the nearest beat (positive: the beat comes
    /// later), or None without a grid.
    pub fn beat_distance(&self, frame: f64) -> Option<f64> {
        self.nearest_beat_frame(frame).map(|b| b - frame)
    }

    /// `frame` moved to the nearest beat's whole frame when snapping is on
    /// and there is a grid; unchanged otherwise.
    pub fn snap(&self, frame: i64) -> i64 {
        if !self.snap_to_beats {
            return frame;
        }
        match self.nearest_beat_frame(frame as f64) {
            Some(b) => b.round() as i64,
            None => frame,
        }
    }

    /// A (fractional) playhead frame snapped to the nearest beat's whole
    /// frame when snapping is on; unchanged otherwise.
    pub fn snap_frame(&self, frame: f64) -> f64 {
        if !self.snap_to_beats || !frame.is_finite() {
            return frame;
        }
        self.nearest_beat_frame(frame).map_or(frame, f64::round)
    }

    /// For moving a selection by `delta` frames: the delta that puts the
    /// anchor key (at `anchor`) on a beat when snapping is on.
    pub fn snap_delta(&self, anchor: i64, delta: i64) -> i64 {
        self.snap(anchor + delta) - anchor
    }

    /// Tap tempo: a tap at the transport's current song time. Returns the
    /// new grid once there are enough taps (4).
    pub fn tap(&mut self, frame: f64, now: Instant) -> Option<BeatGrid> {
        let t = self.seconds_of_frame(frame);
        if let Some(last) = self.taps.last()
            && (now.duration_since(last.at).as_secs_f64() > TAP_RESET_SECONDS
                || t <= last.song_seconds)
        {
            self.taps.clear();
        }
        self.taps.push(Tap {
            song_seconds: t,
            at: now,
        });
        if self.taps.len() > 16 {
            self.taps.remove(0);
        }
        if self.taps.len() < 4 {
            return None;
        }
        let times: Vec<f64> = self.taps.iter().map(|t| t.song_seconds).collect();
        let g = crate::audio::grid_from_taps(&times)?;
        self.grid = Some(g);
        self.confidence = None;
        Some(g)
    }

    /// Number of taps in the current tap sequence.
    pub fn tap_count(&self) -> usize {
        self.taps.len()
    }

    /// Moves the grid so that beat `k` sounds at scene frame `frame`.
    pub fn move_beat(&mut self, k: i64, frame: f64) {
        if let Some(g) = self.grid {
            self.grid = Some(g.moved(k, self.seconds_of_frame(frame)));
            self.confidence = None;
        }
    }

    /// Keeps sound and transport together; call once per UI frame after
    /// the transport has advanced on the system clock. `loop_frames` is the
    /// range playback wraps in (the loop range, or the whole scene), as
    /// scene frames.
    ///
    /// While the device plays, the playhead is set from the device clock.
    /// Starting, stopping, seeking while playing (a jump the system clock
    /// cannot explain) and dragging the playhead while stopped (a scrub
    /// snippet) are passed on to the mixer.
    pub fn sync(&mut self, t: &mut Transport, loop_frames: (f64, f64), now: Instant) {
        let elapsed = self
            .last_sync
            .map_or(0.0, |l| now.saturating_duration_since(l).as_secs_f64());
        self.last_sync = Some(now);
        // A stream that stopped (device unplugged; on Windows the default
        // device changed) is reopened, or the transport goes on silently.
        if let Some(sound) = &mut self.sound
            && let Some(msg) = sound.recover(now)
        {
            let silent = !sound.is_live();
            self.messages.push((msg, silent));
        }
        let (Some(timing), Some(sound)) = (self.timing(), &self.sound) else {
            self.last_frame = t.frame;
            self.last_playing = t.playing;
            return;
        };
        let (volume, muted) = (self.volume, self.muted);
        let range = (
            timing.sample_at(loop_frames.0),
            timing.sample_at(loop_frames.1),
        );
        let loop_changed = self.last_loop != Some(range);
        sound.with_mixer(|m| {
            m.set_volume(volume);
            m.set_muted(muted);
            if loop_changed {
                m.set_loop(Some(range));
            }
        });
        self.last_loop = Some(range);
        if t.playing {
            // Where the system clock would have put the playhead: anything
            // else (beyond a loop wrap) is the user moving it.
            let expected = self.last_frame + elapsed * 30.0;
            let wrapped = expected >= loop_frames.1 - 1.0 && t.frame <= loop_frames.0 + 3.0;
            let moved = self.last_playing && (t.frame - expected).abs() > 2.0 && !wrapped;
            let mixer_playing = sound.with_mixer(|m| m.is_playing());
            if !self.last_playing || moved || !mixer_playing {
                let at = timing.sample_at(t.frame);
                sound.with_mixer(|m| m.play_from(at));
            } else if let Some(h) = sound.heard_position() {
                // The device clock leads: the picture follows the sound.
                t.frame = timing.frame_at(h);
            }
        } else if self.last_playing {
            sound.with_mixer(|m| m.stop());
        } else if self.last_frame.is_finite() && (t.frame - self.last_frame).abs() >= 0.5 {
            // The playhead was dragged: play a snippet of the song there.
            let at = timing.sample_at(t.frame);
            sound.with_mixer(|m| m.scrub(at));
        }
        self.last_frame = t.frame;
        self.last_playing = t.playing;
    }

    /// Whether the mixer is playing (for tests and the status bar).
    pub fn sound_playing(&self) -> bool {
        self.sound
            .as_ref()
            .is_some_and(|s| s.with_mixer(|m| m.is_playing()))
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The scene's song slot changed (a scene was opened or cleared, a song
/// set or removed, or such a step undone): load what it names, or clear.
/// The shell calls this from its one `apply` when the slot differs after
/// an event. A different song drops the loaded one first, so the loaded
/// song is not written back over the scene's new one while it decodes.
pub fn scene_song_changed(
    song: &mut SongState,
    in_scene: Option<&crate::scene::Song>,
    jobs: &JobService,
) {
    match in_scene {
        Some(s) if song.requested() != Some(s.path.as_path()) => {
            song.clear();
            song.load(s.path.clone(), s.offset, jobs);
        }
        Some(s) => song.offset_frames = s.offset,
        None => song.clear(),
    }
}

/// Once per frame: loader results, the loaded song → the scene's song
/// slot, sound ⇄ transport, messages for the status bar. A song that
/// arrives (File ▸ Load song, a dropped audio file) becomes the scene's
/// once decoded, so a broken file changes nothing (the other way, the
/// scene's slot → the loaded song, is [`scene_song_changed`]). The sound
/// clock may move `transport` (the shell's working copy); what the
/// workspace should know comes back as events.
pub fn frame(
    song: &mut SongState,
    ws: &crate::workspace::Workspace,
    transport: &mut Transport,
    jobs: &JobService,
    ctx: &egui::Context,
) -> Vec<crate::workspace::Event> {
    use crate::workspace::{Event, SceneEvent};
    let mut events = Vec::new();
    // A song arrived: it becomes the scene's.
    if song.poll(jobs) {
        ctx.request_repaint();
    }
    if let Some(path) = song.path.clone() {
        let now = Some(crate::scene::Song {
            path,
            offset: song.offset_frames,
        });
        if now != ws.scene().song {
            events.push(Event::Scene(SceneEvent::SetSong(now)));
        }
    }
    // The song's length counts in the scene's end.
    let seconds = song.song.as_ref().map(|s| s.pcm.duration_seconds());
    events.push(Event::SongLength(seconds));
    if song.loading().is_some() {
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
    // Sound and transport: the transport's own wrap range.
    let (lo, hi) = transport.wrap_range(ws.scene_end());
    song.sync(transport, (f64::from(lo), f64::from(hi)), Instant::now());
    if transport.playing && song.song.is_some() {
        ctx.request_repaint();
    }
    events
}
