//! When a sample written to a sound *server* is heard: the clock of a
//! stream that a server (PulseAudio, PipeWire's pulse server) pulls from,
//! as far as the client can see it.
//!
//! A server stream is a byte queue: the client writes at the end, the
//! server reads from the front into its sink, and the sink plays what it
//! read after its own latency. A timing report says, for one moment, how
//! many bytes the server has read (`read_offset`) and how long the sink
//! takes to play what it has (`sink_latency`). From it, the byte at offset
//! `B` is heard at `moment + sink_latency + (B − read_offset) / rate`: the
//! queue drains in real time. Each report replaces the last, so the sound
//! card's drift against the system clock never adds up.
//!
//! The [`Mixer`](super::playback::Mixer) needs, for each buffer it fills,
//! how long until that buffer's first sample is heard: [`ServerClock::latency`].

use std::time::{Duration, Instant};

/// Byte offsets of a stream ⇄ the moments they are heard.
#[derive(Debug, Clone, Copy)]
pub struct ServerClock {
    /// Stream bytes the server consumes per second of real time (frame size
    /// × sample rate).
    bytes_per_second: f64,
    /// A byte offset and when its first sample is heard.
    anchor: Option<(i64, Instant)>,
}

impl ServerClock {
    /// A clock for a stream of `bytes_per_second` (at least 1).
    pub fn new(bytes_per_second: f64) -> ServerClock {
        let bytes_per_second = if bytes_per_second.is_finite() && bytes_per_second >= 1.0 {
            bytes_per_second
        } else {
            1.0
        };
        ServerClock {
            bytes_per_second,
            anchor: None,
        }
    }

    /// Before any report: the byte at `offset` is written at `at` into an
    /// empty stream, which starts playing at once and is heard after
    /// `lead` (the server's latency for the new stream). Ignored once a
    /// report has come.
    pub fn start(&mut self, at: Instant, offset: i64, lead: Duration) {
        if self.anchor.is_none() {
            self.anchor = Some((offset, at + lead));
        }
    }

    /// A timing report: at `at` the server had read `read_offset` bytes of
    /// the stream, and its sink needs `sink_latency` to play what it read.
    pub fn report(&mut self, at: Instant, read_offset: i64, sink_latency: Duration) {
        self.anchor = Some((read_offset, at + sink_latency));
    }

    /// Whether a report or a start has set the clock.
    pub fn is_set(&self) -> bool {
        self.anchor.is_some()
    }

    /// How long from `now` until the byte at `offset` is heard; zero when
    /// it is (or should already have been) heard, or the clock is not set.
    pub fn latency(&self, offset: i64, now: Instant) -> Duration {
        let Some((anchor, at)) = self.anchor else {
            return Duration::ZERO;
        };
        // Seconds from `now` to `at`, then the queue ahead of `offset`.
        let to_anchor = if at >= now {
            at.duration_since(now).as_secs_f64()
        } else {
            -now.duration_since(at).as_secs_f64()
        };
        let ahead = (offset - anchor) as f64 / self.bytes_per_second;
        let secs = to_anchor + ahead;
        if secs.is_finite() && secs > 0.0 {
            Duration::from_secs_f64(secs.min(60.0))
        } else {
            Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ServerClock;
    use std::time::{Duration, Instant};

    /// 48 kHz stereo f32: 384 000 bytes a second.
    const BPS: f64 = 48_000.0 * 8.0;

    #[test]
    fn unset_clock_says_zero() {
        let c = ServerClock::new(BPS);
        assert!(!c.is_set());
        assert_eq!(c.latency(1000, Instant::now()), Duration::ZERO);
    }

    #[test]
    fn a_new_stream_is_heard_after_its_lead_then_at_the_byte_rate() {
        let t0 = Instant::now();
        let mut c = ServerClock::new(BPS);
        c.start(t0, 0, Duration::from_millis(30));
        assert!(c.is_set());
        assert_eq!(c.latency(0, t0), Duration::from_millis(30));
        // 100 ms of audio later in the queue, asked 10 ms later.
        let l = c.latency(38_400, t0 + Duration::from_millis(10));
        assert!((l.as_secs_f64() - 0.120).abs() < 1e-9, "{l:?}");
        // A second start does not move a set clock.
        c.start(t0 + Duration::from_secs(1), 0, Duration::ZERO);
        assert_eq!(c.latency(0, t0), Duration::from_millis(30));
    }

    #[test]
    fn a_report_replaces_the_estimate_and_drift_does_not_add_up() {
        let t0 = Instant::now();
        let mut c = ServerClock::new(BPS);
        c.start(t0, 0, Duration::from_millis(30));
        // The card runs 0.1 % fast: after 240 s of system time it has read
        // 240.24 s of bytes. Reported with a 25 ms sink latency.
        let at = t0 + Duration::from_secs(240);
        let read = (240.24 * BPS) as i64;
        c.report(at, read, Duration::from_millis(25));
        // The next buffer starts 80 ms of bytes after what was read.
        let next = read + (0.080 * BPS) as i64;
        let l = c.latency(next, at);
        assert!((l.as_secs_f64() - 0.105).abs() < 1e-6, "{l:?}");
    }

    #[test]
    fn bytes_already_heard_have_no_latency() {
        let t0 = Instant::now();
        let mut c = ServerClock::new(BPS);
        c.report(t0, 384_000, Duration::from_millis(20));
        assert_eq!(c.latency(0, t0), Duration::ZERO);
        assert_eq!(
            c.latency(384_000, t0 + Duration::from_secs(5)),
            Duration::ZERO
        );
    }

    #[test]
    fn a_nonsense_rate_is_clamped() {
        let t0 = Instant::now();
        let mut c = ServerClock::new(f64::NAN);
        c.report(t0, 0, Duration::ZERO);
        // One byte a second, capped at a minute.
        assert_eq!(c.latency(5, t0), Duration::from_secs(5));
        assert_eq!(c.latency(1_000, t0), Duration::from_secs(60));
    }
}
