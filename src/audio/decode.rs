//! Decoding a song file (WAV, MP3, OGG Vorbis, FLAC) through symphonia into
//! a compact [`Pcm`]. Runs on any thread; reports progress and stops early
//! when cancelled through a shared [`crate::progress::Progress`].
//!
//! Policy on damage: a packet that fails to decode is skipped (players do the
//! same, and one bad MP3 frame should not lose a song), but a file that
//! cannot be probed, has no audio track, or yields no sound at all is an
//! error. More than two channels are reduced to the first two (front left,
//! front right).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use symphonia::core::codecs::audio::{AudioDecoder, AudioDecoderOptions};
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;

use super::error::AudioError;
use super::pcm::{Pcm, f32_to_i16};
use crate::progress::Progress;

/// Longest song held in memory (an MMD song is 3–5 minutes).
pub const MAX_MINUTES: u32 = 30;

/// Consecutive undecodable packets after which the file counts as damaged.
const MAX_BAD_PACKETS_IN_A_ROW: u32 = 64;

/// `Err(Cancelled)` once `progress` was asked to stop.
pub(crate) fn check(progress: &Progress) -> Result<(), AudioError> {
    if progress.is_cancelled() {
        Err(AudioError::Cancelled)
    } else {
        Ok(())
    }
}

/// Decodes a song file. Errors name the file.
pub fn decode_file(path: &Path, progress: &Progress) -> Result<Pcm, AudioError> {
    let file = std::fs::File::open(path).map_err(|source| AudioError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let ext = path.extension().and_then(|e| e.to_str());
    decode_source(Box::new(file), ext, progress).map_err(|e| e.in_file(path))
}

/// Decodes a song held in memory. `extension` (e.g. `"mp3"`) is a hint only;
/// the content decides.
pub fn decode_bytes(
    bytes: Vec<u8>,
    extension: Option<&str>,
    progress: &Progress,
) -> Result<Pcm, AudioError> {
    decode_source(Box::new(std::io::Cursor::new(bytes)), extension, progress)
}

/// A media source that counts the bytes read, for progress.
struct Counting {
    inner: Box<dyn MediaSource>,
    pos: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Seek for Counting {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let p = self.inner.seek(to)?;
        self.pos.store(p, Ordering::Relaxed);
        Ok(p)
    }
}

impl MediaSource for Counting {
    fn is_seekable(&self) -> bool {
        self.inner.is_seekable()
    }
    fn byte_len(&self) -> Option<u64> {
        self.inner.byte_len()
    }
}

fn corrupt(e: SymError) -> AudioError {
    match e {
        SymError::Unsupported(what) => AudioError::Unsupported(what.to_string()),
        SymError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            AudioError::Corrupt("the file ends too early".into())
        }
        other => AudioError::Corrupt(other.to_string()),
    }
}

fn decode_source(
    source: Box<dyn MediaSource>,
    extension: Option<&str>,
    progress: &Progress,
) -> Result<Pcm, AudioError> {
    // A decoder bug met on a hostile file must not take the app down: it
    // becomes an error like any other damage.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        decode_unguarded(source, extension, progress)
    }))
    .unwrap_or_else(|_| {
        Err(AudioError::Corrupt(
            "the decoder gave up on this file".into(),
        ))
    })
}

fn decode_unguarded(
    source: Box<dyn MediaSource>,
    extension: Option<&str>,
    progress: &Progress,
) -> Result<Pcm, AudioError> {
    progress.set_fraction(0.0);
    let total_bytes = source.byte_len().filter(|&n| n > 0);
    let pos = Arc::new(AtomicU64::new(0));
    let counting = Counting {
        inner: source,
        pos: Arc::clone(&pos),
    };
    let mss = MediaSourceStream::new(Box::new(counting), Default::default());
    let OpenTrack {
        mut format,
        mut decoder,
        track_id,
        rate,
    } = open_track(mss, extension)?;

    let mut rate: Option<u32> = rate;
    let mut channels: Option<usize> = None;
    let mut out: Vec<i16> = Vec::new();
    let mut packet_buf: Vec<f32> = Vec::new();
    let mut bad_in_a_row = 0u32;
    let mut last_error: Option<String> = None;
    loop {
        check(progress)?;
        let packet = match format.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            // A chained stream or a file cut short: keep what was decoded.
            Err(SymError::ResetRequired) => break,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => {
                if out.is_empty() {
                    return Err(corrupt(e));
                }
                // Damage after some sound: keep what came before it.
                break;
            }
        };
        if packet.track_id != track_id {
            continue;
        }
        let buf = match decoder.decode(&packet) {
            Ok(b) => b,
            Err(SymError::DecodeError(msg)) => {
                bad_in_a_row += 1;
                last_error = Some(msg.to_string());
                if bad_in_a_row > MAX_BAD_PACKETS_IN_A_ROW {
                    return Err(AudioError::Corrupt(format!(
                        "more than {MAX_BAD_PACKETS_IN_A_ROW} packets in a row fail to decode ({msg})"
                    )));
                }
                continue;
            }
            Err(SymError::IoError(_)) => {
                bad_in_a_row += 1;
                continue;
            }
            Err(e) => return Err(corrupt(e)),
        };
        bad_in_a_row = 0;
        let spec = buf.spec();
        let r = spec.rate();
        let c = spec.channels().count();
        if c == 0 {
            continue;
        }
        match (rate, channels) {
            (_, None) => {
                rate = Some(r);
                channels = Some(c);
            }
            (Some(r0), Some(c0)) if r0 != r || c0 != c => {
                // A stream that changes format midway: keep the first part.
                break;
            }
            _ => {}
        }
        if !(8000..=192_000).contains(&r) {
            return Err(AudioError::SampleRate(r));
        }
        buf.copy_to_vec_interleaved(&mut packet_buf);
        let keep = c.min(2);
        for frame in packet_buf.chunks_exact(c) {
            for &s in &frame[..keep] {
                out.push(f32_to_i16(s));
            }
        }
        let positions = out.len() / keep;
        if positions as u64 > u64::from(MAX_MINUTES) * 60 * u64::from(r) {
            return Err(AudioError::TooLong {
                max_minutes: MAX_MINUTES,
            });
        }
        if let Some(total) = total_bytes {
            progress.set_fraction(pos.load(Ordering::Relaxed) as f32 / total as f32);
        }
    }
    let (Some(rate), Some(channels)) = (rate, channels) else {
        return Err(match last_error {
            Some(msg) => AudioError::Corrupt(format!("no packet decodes ({msg})")),
            None => AudioError::Empty,
        });
    };
    if out.is_empty() {
        return Err(AudioError::Empty);
    }
    let channels = u16::try_from(channels.min(2)).unwrap_or(2);
    let pcm = Pcm::new(rate, channels, out).ok_or(AudioError::SampleRate(rate))?;
    progress.set_fraction(1.0);
    Ok(pcm)
}

/// The opened song: its container's reader, the decoder of its default
/// audio track, that track's id, and the sample rate the container gives.
struct OpenTrack {
    format: Box<dyn FormatReader>,
    decoder: Box<dyn AudioDecoder>,
    track_id: u32,
    rate: Option<u32>,
}

/// Probes the container (helped by the file's extension) and opens its
/// default audio track's decoder.
fn open_track(
    mss: MediaSourceStream<'static>,
    extension: Option<&str>,
) -> Result<OpenTrack, AudioError> {
    let mut hint = Hint::new();
    if let Some(ext) = extension {
        hint.with_extension(ext);
    }
    let format = symphonia::default::get_probe()
        .probe(
            &hint,
            mss,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(|e| match e {
            SymError::Unsupported(_) => {
                AudioError::Unsupported("the content is not a known audio format".into())
            }
            other => corrupt(other),
        })?;
    let track = format
        .default_track(TrackType::Audio)
        .ok_or(AudioError::NoAudioTrack)?;
    let track_id = track.id;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|p| p.audio())
        .ok_or(AudioError::NoAudioTrack)?;
    let decoder = symphonia::default::get_codecs()
        .make_audio_decoder(params, &AudioDecoderOptions::default())
        .map_err(corrupt)?;
    let rate = params.sample_rate;
    Ok(OpenTrack {
        format,
        decoder,
        track_id,
        rate,
    })
}
