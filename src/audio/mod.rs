//! The song: decoding, the waveform envelope, the frame ⇄ sample mapping and
//! the beat grid. Pure: names no GUI or sound-device type; the app plays the
//! sound and draws the lane from what this layer computes.
//!
//! ```text
//! decode    file/bytes → Pcm (symphonia: WAV, MP3, OGG Vorbis, FLAC), progress, cancel
//! pcm       interleaved i16 at the source rate, 1–2 channels
//! envelope  min/max pyramid; exact min/max per pixel column at any zoom
//! timing    30 fps frames ⇄ sample positions with the song's frame offset
//! onset     onset strength curve (spectral flux)
//! beats     tempo + phase → BeatGrid; tap tempo
//! playback  the mixer a sound device pulls from; the device clock
//! server_clock  when a byte written to a sound server's stream is heard
//! ```

pub mod beats;
pub mod decode;
pub mod envelope;
pub mod error;
pub mod onset;
pub mod pcm;
pub mod playback;
pub mod server_clock;
pub mod timing;

pub use beats::{BeatEstimate, BeatGrid, estimate_beats, grid_from_taps};
pub use decode::{decode_bytes, decode_file};
pub use envelope::{BASE_BLOCK, COARSE_COLUMN, Envelope, MinMax};
pub use error::AudioError;
pub use pcm::Pcm;
pub use timing::{FPS, SongTiming};

/// A decoded song with its waveform envelope.
#[derive(Debug, Clone)]
pub struct Song {
    pub pcm: Pcm,
    pub envelope: Envelope,
}

impl Song {
    pub fn new(pcm: Pcm) -> Song {
        let envelope = Envelope::build(&pcm);
        Song { pcm, envelope }
    }

    /// Decodes a file and builds its envelope.
    pub fn load(
        path: &std::path::Path,
        progress: &crate::progress::Progress,
    ) -> Result<Song, AudioError> {
        let pcm = decode_file(path, progress)?;
        decode::check(progress)?;
        Ok(Song::new(pcm))
    }

    /// Exact min/max per pixel column (see [`Envelope::columns`]).
    pub fn columns(&self, start: f64, samples_per_column: f64, out: &mut [Option<MinMax>]) {
        self.envelope
            .columns(&self.pcm, start, samples_per_column, out)
    }
}
