//! What the sound device plays, computed without naming any device: the
//! [`Mixer`] fills the device's buffers from the song (any device rate and
//! channel count, volume, mute, loop range, scrub snippets) and keeps the
//! *device clock* — the song position of the sample the listener hears —
//! from which the app's transport takes its playhead while playing.
//!
//! Why the transport follows the device and not the wall clock: a sound
//! card's crystal differs from the system clock by up to ~0.1 %, which is
//! 7 frames over a 4-minute song. The mixer's cursor advances exactly by
//! the samples the device consumed, so the picture cannot drift from the
//! sound; between two device callbacks the position is extrapolated from
//! the last callback's time.
//!
//! Positions are *song sample positions* (fractional, at the song's rate);
//! negative before the song starts and past its end they play silence while
//! the clock keeps running, so a scene can start before or run past its song.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::pcm::{FULL_SCALE, Pcm};

/// Length of a scrub snippet (what dragging the playhead plays).
pub const SCRUB_SECONDS: f64 = 0.08;
/// Fade in/out of a scrub snippet, so it does not click.
const SCRUB_FADE_SECONDS: f64 = 0.005;

#[derive(Debug, Clone, Copy)]
struct Scrub {
    cursor: f64,
    /// Song samples left to play.
    remaining: f64,
    total: f64,
}

/// The last device callback: where the cursor was and when its first
/// sample reaches the listener.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    cursor: f64,
    /// When the first sample of that buffer is heard.
    heard_at: Instant,
    /// Song samples per second of real (device) time.
    rate: f64,
    /// Song samples handed out in that buffer.
    span: f64,
}

/// The song's sound as the device pulls it. Shared between the UI thread
/// and the device callback behind a mutex held only for a buffer's worth
/// of copying.
#[derive(Debug)]
pub struct Mixer {
    song: Option<Arc<Pcm>>,
    playing: bool,
    /// Song position of the next sample handed to the device.
    cursor: f64,
    volume: f32,
    muted: bool,
    /// While playing, reaching `.1` jumps back to `.0` (song samples).
    loop_range: Option<(f64, f64)>,
    scrub: Option<Scrub>,
    anchor: Option<Anchor>,
    /// Where the current playback started (song samples).
    started_from: f64,
    /// Device samples (per channel) delivered while playing.
    delivered: u64,
}

impl Default for Mixer {
    fn default() -> Self {
        Mixer {
            song: None,
            playing: false,
            cursor: 0.0,
            volume: 1.0,
            muted: false,
            loop_range: None,
            scrub: None,
            anchor: None,
            started_from: 0.0,
            delivered: 0,
        }
    }
}

impl Mixer {
    pub fn new() -> Mixer {
        Mixer::default()
    }

    /// Sets (or clears) the song; stops playback.
    pub fn set_song(&mut self, song: Option<Arc<Pcm>>) {
        self.song = song;
        self.playing = false;
        self.scrub = None;
        self.anchor = None;
    }

    pub fn has_song(&self) -> bool {
        self.song.is_some()
    }

    /// Starts playing from song position `at` (song samples).
    pub fn play_from(&mut self, at: f64) {
        self.cursor = if at.is_finite() { at } else { 0.0 };
        self.started_from = self.cursor;
        self.playing = true;
        self.scrub = None;
        self.anchor = None;
    }

    pub fn stop(&mut self) {
        self.playing = false;
        self.anchor = None;
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Volume as a linear gain, 0..=1.
    pub fn set_volume(&mut self, v: f32) {
        self.volume = if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            1.0
        };
    }

    pub fn volume(&self) -> f32 {
        self.volume
    }

    pub fn set_muted(&mut self, m: bool) {
        self.muted = m;
    }

    pub fn muted(&self) -> bool {
        self.muted
    }

    /// Loops `[start, end)` (song samples) while playing; `None` plays on.
    pub fn set_loop(&mut self, range: Option<(f64, f64)>) {
        self.loop_range = range.filter(|(a, b)| a.is_finite() && b.is_finite() && b > a);
    }

    /// Plays a short snippet from `at` (song samples) — the sound of the
    /// playhead being dragged. Ignored while playing.
    pub fn scrub(&mut self, at: f64) {
        if self.playing || !at.is_finite() {
            return;
        }
        let rate = self
            .song
            .as_ref()
            .map_or(44_100.0, |s| f64::from(s.sample_rate()));
        let total = SCRUB_SECONDS * rate;
        self.scrub = Some(Scrub {
            cursor: at,
            remaining: total,
            total,
        });
    }

    /// Device samples (per channel) delivered while playing since the
    /// mixer was made.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The song position (song samples) the listener hears at `now`, while
    /// playing: the last callback's cursor moved by the time since its
    /// first sample was (or will be) heard, never past the samples handed
    /// out (a stalled device stops the clock) and never before the position
    /// playback started from. `None` when stopped or before the first
    /// callback.
    pub fn heard_position(&self, now: Instant) -> Option<f64> {
        if !self.playing {
            return None;
        }
        let a = self.anchor?;
        let dt = if now >= a.heard_at {
            now.duration_since(a.heard_at).as_secs_f64()
        } else {
            -a.heard_at.duration_since(now).as_secs_f64()
        };
        let mut pos = a.cursor + (dt * a.rate).min(a.span);
        match self.loop_range {
            Some((lo, hi)) if a.cursor >= lo && a.cursor < hi => {
                if pos >= hi {
                    pos = lo + (pos - hi);
                } else if pos < lo {
                    // Still hearing the end of the previous lap.
                    pos = hi - (lo - pos);
                }
            }
            _ => pos = pos.max(self.started_from),
        }
        Some(pos)
    }

    /// Fills one device buffer. `out` is interleaved with `channels`
    /// channels at `device_rate`; `now` is when the callback runs and
    /// `latency` how long until its first sample is heard (from the device
    /// API's timestamps; zero if unknown).
    pub fn fill(
        &mut self,
        out: &mut [f32],
        channels: usize,
        device_rate: u32,
        now: Instant,
        latency: Duration,
    ) {
        out.iter_mut().for_each(|s| *s = 0.0);
        let channels = channels.max(1);
        let frames = out.len() / channels;
        let Some(song) = self.song.clone() else {
            return;
        };
        let step = f64::from(song.sample_rate()) / f64::from(device_rate.max(1));
        let gain = if self.muted { 0.0 } else { self.volume };
        if self.playing {
            self.anchor = Some(Anchor {
                cursor: self.cursor,
                heard_at: now + latency,
                rate: f64::from(song.sample_rate()),
                span: frames as f64 * step,
            });
            for f in 0..frames {
                let (l, r) = frame_at(&song, self.cursor);
                write_frame(
                    &mut out[f * channels..(f + 1) * channels],
                    l * gain,
                    r * gain,
                );
                self.cursor += step;
                if let Some((lo, hi)) = self.loop_range
                    && self.cursor >= hi
                {
                    self.cursor = lo + (self.cursor - hi);
                }
            }
            self.delivered += frames as u64;
        } else if let Some(mut s) = self.scrub {
            let fade = SCRUB_FADE_SECONDS * f64::from(song.sample_rate());
            for f in 0..frames {
                if s.remaining <= 0.0 {
                    break;
                }
                let played = s.total - s.remaining;
                let env = (played / fade).min(s.remaining / fade).min(1.0) as f32;
                let (l, r) = frame_at(&song, s.cursor);
                write_frame(
                    &mut out[f * channels..(f + 1) * channels],
                    l * gain * env,
                    r * gain * env,
                );
                s.cursor += step;
                s.remaining -= step;
            }
            self.scrub = (s.remaining > 0.0).then_some(s);
        }
    }
}

/// The song's left and right sample at a fractional position (linear
/// interpolation; silence outside the song; mono plays on both sides).
fn frame_at(song: &Pcm, pos: f64) -> (f32, f32) {
    if pos < 0.0 || !pos.is_finite() {
        return (0.0, 0.0);
    }
    let i = pos.floor() as usize;
    let t = (pos - i as f64) as f32;
    let get = |i: usize, c: u16| song.sample(i, c).map_or(0.0, |s| f32::from(s) / FULL_SCALE);
    let right = if song.channels() > 1 { 1 } else { 0 };
    let l = get(i, 0) * (1.0 - t) + get(i + 1, 0) * t;
    let r = get(i, right) * (1.0 - t) + get(i + 1, right) * t;
    (l, r)
}

fn write_frame(out: &mut [f32], l: f32, r: f32) {
    match out.len() {
        0 => {}
        1 => out[0] = 0.5 * (l + r),
        _ => {
            out[0] = l;
            out[1] = r;
        }
    }
}
