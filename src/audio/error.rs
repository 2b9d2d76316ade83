//! Errors of the audio layer: one clear sentence each, naming the file when
//! there is one. Nothing in this layer panics on a hostile file.

use thiserror::Error;

/// Why a song could not be decoded or analysed.
#[derive(Debug, Error)]
pub enum AudioError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("not a song this app can read ({0}); WAV, MP3, OGG Vorbis and FLAC are supported")]
    Unsupported(String),
    #[error("the song is damaged: {0}")]
    Corrupt(String),
    #[error("the file holds no audio track")]
    NoAudioTrack,
    #[error("the song holds no sound (0 samples decoded)")]
    Empty,
    #[error("sample rate {0} Hz is not supported (8000–192000 Hz)")]
    SampleRate(u32),
    #[error("the song is longer than {max_minutes} minutes; refusing to hold it in memory")]
    TooLong { max_minutes: u32 },
    #[error("cancelled")]
    Cancelled,
}

impl AudioError {
    /// Adds the file name to a decoding error, so a message shown on its own
    /// still says which file it is about.
    pub fn in_file(self, path: &std::path::Path) -> AudioError {
        let name = path.display();
        match self {
            AudioError::Unsupported(m) => AudioError::Unsupported(format!("{name}: {m}")),
            AudioError::Corrupt(m) => AudioError::Corrupt(format!("{name}: {m}")),
            other => other,
        }
    }
}
