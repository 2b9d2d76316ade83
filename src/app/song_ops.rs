//! The song's place in the app: it follows the scene's song slot (opening a
//! scene loads its song; loading a song — File ▸ Load song, a dropped audio
//! file — puts it in the scene once it has decoded, so a broken file changes
//! nothing), and once per frame it keeps the sound and the transport
//! together. See [`super::song::SongState`].

use std::path::PathBuf;

use super::StudioApp;
use crate::scene;
use crate::workspace::{Event, SceneEvent};

impl StudioApp {
    /// Loads a song for the scene (from the File menu or a drop). The scene
    /// takes it once it has decoded; until then nothing changes.
    /// With nothing open (a song dropped on the empty window, or given
    /// alone on the command line) it goes under the bundled demo scene, so
    /// its waveform and beat grid have a timeline to sit on.
    pub fn load_song(&mut self, path: PathBuf) {
        if self.ws.docs().is_empty() && self.ws.scene().actors.is_empty() {
            self.open_demo();
            self.central = super::CentralView::Preview;
        }
        let offset = self.shared.song.offset_frames;
        let jobs = self.shared.jobs.clone();
        self.shared.song.load(path, offset, &jobs);
    }

    /// Once per frame: loader results, scene ⇄ song, sound ⇄ transport,
    /// messages to the status bar.
    pub(super) fn song_frame(&mut self, ctx: &egui::Context) {
        let jobs = self.shared.jobs.clone();
        let song = &mut self.shared.song;
        // The scene's song changed under us (a scene was opened or cleared).
        let in_scene = self.ws.scene().song.clone();
        if in_scene != song.scene_seen {
            match &in_scene {
                Some(s) if song.requested() != Some(s.path.as_path()) => {
                    song.load(s.path.clone(), s.offset, &jobs);
                }
                Some(s) => song.offset_frames = s.offset,
                None => song.clear(),
            }
            song.scene_seen = in_scene;
        }
        // A song arrived: it becomes the scene's.
        if song.poll(&jobs) {
            ctx.request_repaint();
        }
        if let Some(path) = song.path.clone() {
            let now = Some(scene::Song {
                path,
                offset: song.offset_frames,
            });
            song.scene_seen = now.clone();
            if now != self.ws.scene().song {
                self.apply(Event::Scene(SceneEvent::SetSong(now)));
            }
        }
        // The song's length counts in the scene's end.
        let seconds = self
            .shared
            .song
            .song
            .as_ref()
            .map(|s| s.pcm.duration_seconds());
        self.apply(Event::SongLength(seconds));
        let song = &mut self.shared.song;
        if song.loading().is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        // Sound and transport: the transport's own wrap range.
        let mut t = self.ws.transport().clone();
        let (lo, hi) = t.wrap_range(self.ws.scene_end());
        let (lo, hi) = (f64::from(lo), f64::from(hi));
        let t = &mut t;
        song.sync(t, (lo, hi), std::time::Instant::now());
        if t.playing && song.song.is_some() {
            ctx.request_repaint();
        }
        for (m, is_err) in song.messages.drain(..) {
            self.shared.messages.push((m, is_err));
        }
        // The sound clock may have moved the playhead.
        self.shared.transport = t.clone();
        self.sync_transport();
    }
}
