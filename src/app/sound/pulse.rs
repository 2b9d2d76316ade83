//! Sound on Linux through a PulseAudio server — or PipeWire's pulse server,
//! which speaks the same protocol on current desktops — with the pure-Rust
//! [`pulseaudio`] crate (MIT): no system library and no header at build
//! time, so the default build plays the song.
//!
//! One playback stream to the default sink, 48 kHz stereo f32, about
//! [`TARGET_LATENCY`] deep. Its own thread reads the server's messages
//! from a unix socket: for each *request* it fills that many bytes from
//! the [`Mixer`] and writes them back; after each write it asks for the
//! stream's timing, from which [`ServerClock`] tells the mixer how long
//! until the next buffer is heard (the transport follows what is heard).
//!
//! The server vanishing (killed, restarted, the user logging out of it),
//! or it ending the stream, is reported in the output's lost slot
//! (`lost.rs`) like a lost cpal device; [`super::SoundOutput::recover`]
//! then reopens or falls silent. Nothing the server sends can panic this side: every packet is
//! read whole (bounded) before it is parsed, and parse errors skip it.

use std::ffi::CString;
use std::io::{self, BufReader, Cursor, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use pulseaudio::protocol::{self, Command};

use super::lost::{self, LostSlot};
use crate::audio::playback::Mixer;
use crate::audio::server_clock::ServerClock;

/// The stream's rate (the server resamples to its sink's).
pub const RATE: u32 = 48_000;
/// Interleaved stereo f32: bytes per frame.
const FRAME_BYTES: usize = 8;
/// What the stream asks of the server: its buffer plus the sink's latency
/// (PulseAudio's "adjust latency" mode). Low enough that starting, stopping
/// and scrubbing feel immediate, high enough not to underrun on a busy
/// machine.
pub const TARGET_LATENCY: Duration = Duration::from_millis(80);
/// The smallest request the server makes.
const MIN_REQUEST: Duration = Duration::from_millis(20);
/// How long the handshake may take before the server counts as not answering.
const SETUP_TIMEOUT: Duration = Duration::from_secs(3);
/// A write the server does not take this long counts as the server gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest packet accepted from the server (PulseAudio's own limit on a
/// stream buffer, plus room for a command).
pub const MAX_PACKET: usize = protocol::MAX_MEMBLOCKQ_LENGTH + 64 * 1024;
/// The channel of command packets (not stream data).
const COMMAND_CHANNEL: u32 = u32::MAX;

/// A playing stream; dropping it closes the connection and joins its thread.
pub struct PulseStream {
    stop: Arc<AtomicBool>,
    socket: UnixStream,
    thread: Option<JoinHandle<()>>,
}

impl Drop for PulseStream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the thread's blocking read (it then sees `stop`).
        let _ = self.socket.shutdown(Shutdown::Both);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The sockets where a server may listen, in the order libpulse tries
/// them: `PULSE_SERVER` alone when set (its `unix:` entries; a bare path
/// counts), else `$PULSE_RUNTIME_PATH/native`, `$XDG_RUNTIME_DIR/pulse/native`
/// and the system-wide `/run/pulse/native`. `env` reads a variable.
pub fn server_sockets(env: impl Fn(&str) -> Option<String>) -> Result<Vec<PathBuf>, String> {
    if let Some(list) = env("PULSE_SERVER").filter(|s| !s.trim().is_empty()) {
        let paths: Vec<PathBuf> = list.split_whitespace().filter_map(unix_path).collect();
        if paths.is_empty() {
            return Err(format!(
                "PULSE_SERVER is {list:?}, which names no local socket (this app reaches a sound server through a unix: socket only)"
            ));
        }
        return Ok(paths);
    }
    let dir = |k: &str| env(k).map(PathBuf::from).filter(|p| p.is_absolute());
    let mut out = Vec::new();
    if let Some(p) = dir("PULSE_RUNTIME_PATH") {
        out.push(p.join("native"));
    }
    if let Some(p) = dir("XDG_RUNTIME_DIR") {
        out.push(p.join("pulse").join("native"));
    }
    out.push(PathBuf::from("/run/pulse/native"));
    Ok(out)
}

/// A server address's local socket path: `unix:/path` or `/path`, after an
/// optional `{machine-id}` prefix. Network addresses give `None`.
fn unix_path(addr: &str) -> Option<PathBuf> {
    let addr = match addr.strip_prefix('{') {
        Some(rest) => rest.split_once('}')?.1,
        None => addr,
    };
    let path = addr.strip_prefix("unix:").unwrap_or(addr);
    path.starts_with('/').then(|| PathBuf::from(path))
}

/// Opens a stream on the first server found (see [`server_sockets`]), or
/// says why there is none. Returns the stream and the device's name.
pub fn open(mixer: Arc<Mutex<Mixer>>, lost: LostSlot) -> Result<(PulseStream, String), String> {
    let candidates = server_sockets(|k| std::env::var(k).ok())?;
    let mut failures = Vec::new();
    for path in candidates.iter().filter(|p| p.exists()) {
        match open_at(path, Arc::clone(&mixer), Arc::clone(&lost)) {
            Ok(opened) => return Ok(opened),
            Err(why) => failures.push(why),
        }
    }
    if failures.is_empty() {
        let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "no sound server (PulseAudio or PipeWire) is running: nothing at {}",
            looked.join(", ")
        ));
    }
    Err(failures.join("; "))
}

/// Opens a stream on the server listening at `path`.
pub fn open_at(
    path: &Path,
    mixer: Arc<Mutex<Mixer>>,
    lost: LostSlot,
) -> Result<(PulseStream, String), String> {
    let at = path.display();
    let socket = UnixStream::connect(path)
        .map_err(|e| format!("cannot reach the sound server at {at}: {e}"))?;
    let io_err = |e: io::Error| format!("the sound server at {at}: {e}");
    socket
        .set_read_timeout(Some(SETUP_TIMEOUT))
        .map_err(io_err)?;
    socket
        .set_write_timeout(Some(WRITE_TIMEOUT))
        .map_err(io_err)?;
    let mut conn = Conn {
        reader: BufReader::new(socket.try_clone().map_err(io_err)?),
        writer: socket.try_clone().map_err(io_err)?,
        version: protocol::MAX_VERSION,
        next_seq: 0,
    };
    let (stream, device) = conn
        .handshake()
        .map_err(|e| format!("the sound server at {at} refused a stream: {e}"))?;
    conn.writer.set_read_timeout(None).map_err(io_err)?;
    let stop = Arc::new(AtomicBool::new(false));
    let feed = Feed::new(conn, &stream, mixer, lost, Arc::clone(&stop));
    let thread = std::thread::Builder::new()
        .name("sound-pulse".into())
        .spawn(move || feed.run())
        .map_err(|e| format!("cannot start the sound thread: {e}"))?;
    Ok((
        PulseStream {
            stop,
            socket,
            thread: Some(thread),
        },
        device,
    ))
}

/// One packet: the 20-byte descriptor's channel and the payload after it.
#[derive(Debug, PartialEq, Eq)]
pub struct Packet {
    pub channel: u32,
    pub payload: Vec<u8>,
}

/// Reads one whole packet (descriptor + payload); a payload longer than
/// [`MAX_PACKET`] is refused before anything is allocated for it.
pub fn read_packet(r: &mut impl Read) -> io::Result<Packet> {
    let mut head = [0u8; protocol::DESCRIPTOR_SIZE];
    r.read_exact(&mut head)?;
    let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let channel = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    if length > MAX_PACKET {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the sound server sent a packet of {length} bytes (at most {MAX_PACKET})"),
        ));
    }
    let mut payload = vec![0u8; length];
    r.read_exact(&mut payload)?;
    Ok(Packet { channel, payload })
}

/// A stream-data packet: the descriptor for `channel`, then `samples` as
/// little-endian f32 (PulseAudio's `float32le`), in one buffer.
pub fn encode_samples(channel: u32, samples: &[f32], out: &mut Vec<u8>) {
    out.clear();
    out.resize(protocol::DESCRIPTOR_SIZE, 0);
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    let length = (out.len() - protocol::DESCRIPTOR_SIZE) as u32;
    let mut head = [0u8; protocol::DESCRIPTOR_SIZE];
    protocol::encode_descriptor(
        &mut head,
        &protocol::Descriptor {
            length,
            channel,
            offset: 0,
            flags: protocol::DescriptorFlags::empty(),
        },
    );
    out[..protocol::DESCRIPTOR_SIZE].copy_from_slice(&head);
}

/// The connection while it is being set up (blocking, with timeouts).
struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    version: u16,
    next_seq: u32,
}

impl Conn {
    fn send(&mut self, cmd: &Command) -> Result<u32, String> {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        let mut buf = Vec::new();
        protocol::encode_command_message(&mut buf, seq, cmd, self.version)
            .map_err(|e| format!("cannot encode a command: {e}"))?;
        self.writer
            .write_all(&buf)
            .map_err(|e| format!("cannot write to it: {e}"))?;
        Ok(seq)
    }

    /// Waits for the reply to `seq` (other messages are skipped).
    fn reply<T: protocol::CommandReply>(&mut self, seq: u32) -> Result<T, String> {
        for _ in 0..256 {
            let p = read_packet(&mut self.reader).map_err(|e| match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => "it does not answer".into(),
                io::ErrorKind::UnexpectedEof => "it closed the connection".into(),
                _ => format!("cannot read from it: {e}"),
            })?;
            if p.channel != COMMAND_CHANNEL {
                continue;
            }
            let mut cur = Cursor::new(&p.payload[..]);
            match Command::read_tag_prefixed(&mut cur, self.version) {
                Ok((s, Command::Reply)) if s == seq => {
                    return protocol::TagStructReader::new(&mut cur, self.version)
                        .read()
                        .map_err(|e| format!("its reply makes no sense: {e}"));
                }
                Ok((s, Command::Error(e))) if s == seq => return Err(format!("{e:?}")),
                _ => {}
            }
        }
        Err("it never answered".into())
    }

    /// Auth, client name, the default sink's name, the playback stream.
    fn handshake(&mut self) -> Result<(protocol::CreatePlaybackStreamReply, String), String> {
        let cookie = pulseaudio::cookie_path_from_env()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= 4096))
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_default();
        let seq = self.send(&Command::Auth(protocol::AuthParams {
            version: protocol::MAX_VERSION,
            supports_shm: false,
            supports_memfd: false,
            cookie,
        }))?;
        let auth: protocol::AuthReply = self.reply(seq).map_err(|e| format!("{e} (logging in)"))?;
        if auth.version < protocol::MIN_VERSION {
            return Err(format!("it speaks protocol {} (too old)", auth.version));
        }
        self.version = auth.version.min(protocol::MAX_VERSION);
        let mut props = protocol::Props::new();
        props.set(protocol::Prop::ApplicationName, c"VMD Studio");
        if let Ok(pid) = CString::new(std::process::id().to_string()) {
            props.set(protocol::Prop::ApplicationProcessId, pid);
        }
        let seq = self.send(&Command::SetClientName(props))?;
        let _: protocol::SetClientNameReply = self
            .reply(seq)
            .map_err(|e| format!("{e} (naming the client)"))?;
        // The sink's description for the status bar ("Built-in Audio
        // Analog Stereo"); the stream works without it.
        let seq = self.send(&Command::GetSinkInfo(protocol::GetSinkInfo {
            index: None,
            name: Some(protocol::DEFAULT_SINK.to_owned()),
        }))?;
        let sink: Option<protocol::SinkInfo> = self.reply(seq).ok();
        let seq = self.send(&Command::CreatePlaybackStream(stream_params()))?;
        // PipeWire answers once its session manager has linked the stream
        // to a sink: without one (no WirePlumber) it never does, and this
        // times out after SETUP_TIMEOUT (paplay hangs there too).
        let stream: protocol::CreatePlaybackStreamReply = self
            .reply(seq)
            .map_err(|e| format!("{e} (creating the playback stream)"))?;
        let spec = stream.sample_spec;
        if spec.format != protocol::SampleFormat::Float32Le || spec.channels != 2 {
            return Err(format!("it changed the stream's format to {spec:?}"));
        }
        let name = sink
            .and_then(|s| s.description.or(Some(s.name)))
            .or_else(|| stream.sink_name.clone())
            .map_or_else(
                || "sound server".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
        Ok((stream, name))
    }
}

/// The stream asked for: 48 kHz stereo f32 to the default sink at full
/// volume (the app's own volume is applied by the mixer), about
/// [`TARGET_LATENCY`] from write to ear.
fn stream_params() -> protocol::PlaybackStreamParams {
    let bytes = |d: Duration| (d.as_secs_f64() * f64::from(RATE)) as u32 * FRAME_BYTES as u32;
    let mut props = protocol::Props::new();
    props.set(protocol::Prop::MediaName, c"Song");
    protocol::PlaybackStreamParams {
        sample_spec: protocol::SampleSpec {
            format: protocol::SampleFormat::Float32Le,
            channels: 2,
            sample_rate: RATE,
        },
        channel_map: protocol::ChannelMap::stereo(),
        sink_name: Some(protocol::DEFAULT_SINK.to_owned()),
        buffer_attr: protocol::stream::BufferAttr {
            max_length: u32::MAX,
            target_length: bytes(TARGET_LATENCY),
            pre_buffering: u32::MAX,
            minimum_request_length: bytes(MIN_REQUEST),
            fragment_size: u32::MAX,
        },
        // Without a volume the crate asks for a muted stream.
        cvolume: Some(protocol::ChannelVolume::norm(2)),
        props,
        flags: protocol::stream::StreamFlags {
            adjust_latency: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The stream's thread: answers the server's requests from the mixer.
struct Feed {
    conn: Conn,
    channel: u32,
    mixer: Arc<Mutex<Mixer>>,
    lost: LostSlot,
    stop: Arc<AtomicBool>,
    clock: ServerClock,
    /// The server's latency for the new stream (the clock's first guess).
    lead: Duration,
    /// Stream bytes written so far: the offset of the next write.
    written: i64,
    /// The bytes the server asked for in its reply creating the stream.
    first_request: u32,
    /// The timing query in flight: its sequence number and when it was sent.
    timing: Option<(u32, Instant)>,
    scratch: Vec<f32>,
    bytes: Vec<u8>,
}

impl Feed {
    fn new(
        conn: Conn,
        stream: &protocol::CreatePlaybackStreamReply,
        mixer: Arc<Mutex<Mixer>>,
        lost: LostSlot,
        stop: Arc<AtomicBool>,
    ) -> Feed {
        Feed {
            conn,
            channel: stream.channel,
            mixer,
            lost,
            stop,
            clock: ServerClock::new(f64::from(RATE) * FRAME_BYTES as f64),
            lead: Duration::from_micros(stream.stream_latency.min(10_000_000)),
            written: 0,
            first_request: stream.requested_bytes,
            timing: None,
            scratch: Vec::new(),
            bytes: Vec::new(),
        }
    }

    fn run(mut self) {
        // The bytes the server asked for with the stream itself.
        let mut result = self.write(self.first_request);
        while result.is_ok() {
            result = self.step();
        }
        if let Err(why) = result
            && !self.stop.load(Ordering::SeqCst)
        {
            tracing::warn!("sound output stopped: {why}");
            lost::report(&self.lost, &why);
        }
    }

    /// Handles one message from the server. `Err` ends the stream (with
    /// the reason, unless the app is closing it).
    fn step(&mut self) -> Result<(), String> {
        let p = read_packet(&mut self.conn.reader).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => "the sound server closed the connection".to_owned(),
            _ => format!("lost the connection to the sound server: {e}"),
        })?;
        if p.channel != COMMAND_CHANNEL {
            return Ok(());
        }
        let mut cur = Cursor::new(&p.payload[..]);
        let Ok((seq, cmd)) = Command::read_tag_prefixed(&mut cur, self.conn.version) else {
            return Ok(());
        };
        match cmd {
            Command::Request(r) if r.channel == self.channel => self.write(r.length)?,
            Command::Reply if self.timing.is_some_and(|(s, _)| s == seq) => {
                let sent = self.timing.take().map_or_else(Instant::now, |(_, t)| t);
                let reply: Result<protocol::PlaybackLatency, _> =
                    protocol::TagStructReader::new(&mut cur, self.conn.version).read();
                if let Ok(t) = reply
                    && t.playing
                {
                    // The server measured between our asking and its
                    // answer: take the middle.
                    let now = Instant::now();
                    let at = sent + now.saturating_duration_since(sent) / 2;
                    let sink = Duration::from_micros(t.sink_usec.min(10_000_000));
                    self.clock.report(at, t.read_offset, sink);
                    tracing::trace!(
                        "sound server timing: sink {} us, read {} of {} bytes written",
                        t.sink_usec,
                        t.read_offset,
                        self.written
                    );
                }
            }
            Command::Error(_) if self.timing.is_some_and(|(s, _)| s == seq) => {
                self.timing = None;
            }
            Command::PlaybackStreamKilled(c) if c == self.channel => {
                return Err("the sound server ended the stream".into());
            }
            Command::Underflow(_) => tracing::debug!("sound output: the server ran dry"),
            _ => {}
        }
        Ok(())
    }

    /// Writes `length` bytes (whole frames) from the mixer, then asks for
    /// the stream's timing if no question is in flight.
    fn write(&mut self, length: u32) -> Result<(), String> {
        let frames = (length as usize).min(MAX_PACKET) / FRAME_BYTES;
        if frames == 0 {
            return Ok(());
        }
        let now = Instant::now();
        self.clock.start(now, self.written, self.lead);
        let latency = self.clock.latency(self.written, now);
        self.scratch.clear();
        self.scratch.resize(frames * 2, 0.0);
        if let Ok(mut m) = self.mixer.lock() {
            m.fill(&mut self.scratch, 2, RATE, now, latency);
        }
        encode_samples(self.channel, &self.scratch, &mut self.bytes);
        self.conn
            .writer
            .write_all(&self.bytes)
            .map_err(|e| format!("lost the connection to the sound server: {e}"))?;
        self.written += (frames * FRAME_BYTES) as i64;
        if self.timing.is_none() {
            let seq = self
                .conn
                .send(&Command::GetPlaybackLatency(protocol::LatencyParams {
                    channel: self.channel,
                    now: SystemTime::now(),
                }))
                .map_err(|e| format!("lost the connection to the sound server ({e})"))?;
            self.timing = Some((seq, Instant::now()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_PACKET, Packet, encode_samples, open_at, read_packet, server_sockets};
    use crate::audio::playback::Mixer;
    use std::io::Cursor;
    use std::os::unix::net::UnixListener;
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn sockets_are_looked_for_where_libpulse_looks() {
        let paths = server_sockets(env(&[
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("PULSE_RUNTIME_PATH", "/tmp/pr"),
        ]))
        .unwrap();
        assert_eq!(
            paths,
            [
                "/tmp/pr/native",
                "/run/user/1000/pulse/native",
                "/run/pulse/native"
            ]
            .map(PathBuf::from)
        );
        // A relative runtime dir is not trusted.
        let paths = server_sockets(env(&[("XDG_RUNTIME_DIR", "run")])).unwrap();
        assert_eq!(paths, vec![PathBuf::from("/run/pulse/native")]);
    }

    #[test]
    fn pulse_server_alone_decides_and_only_its_local_sockets_count() {
        let paths = server_sockets(env(&[
            (
                "PULSE_SERVER",
                "tcp:host:4713 {abc123}unix:/a/native /b/native",
            ),
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
        ]))
        .unwrap();
        assert_eq!(paths, ["/a/native", "/b/native"].map(PathBuf::from));
        let why = server_sockets(env(&[("PULSE_SERVER", "192.168.1.2")])).unwrap_err();
        assert!(
            why.contains("192.168.1.2") && why.contains("unix:"),
            "{why}"
        );
        // An empty PULSE_SERVER is as good as none.
        let paths = server_sockets(env(&[("PULSE_SERVER", " ")])).unwrap();
        assert_eq!(paths, vec![PathBuf::from("/run/pulse/native")]);
    }

    #[test]
    fn a_sample_packet_is_a_descriptor_then_little_endian_floats() {
        let mut out = Vec::new();
        encode_samples(7, &[0.5, -1.0], &mut out);
        #[rustfmt::skip]
        let want: Vec<u8> = [
            &8u32.to_be_bytes()[..],      // payload length
            &7u32.to_be_bytes()[..],      // channel
            &0u64.to_be_bytes()[..],      // offset
            &0u32.to_be_bytes()[..],      // flags (seek relative)
            &0.5f32.to_le_bytes()[..],    // left
            &(-1.0f32).to_le_bytes()[..], // right
        ]
        .concat();
        assert_eq!(out, want);
        // Read back as the server would frame it.
        let p = read_packet(&mut Cursor::new(&out)).unwrap();
        assert_eq!(
            p,
            Packet {
                channel: 7,
                payload: want[20..].to_vec()
            }
        );
    }

    #[test]
    fn a_torn_or_oversized_packet_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        encode_samples(1, &[0.25; 4], &mut out);
        for cut in [0, 5, 19, 20, 30] {
            assert!(read_packet(&mut Cursor::new(&out[..cut])).is_err(), "{cut}");
        }
        // A length past the limit is refused before any allocation.
        let mut huge = out.clone();
        huge[..4].copy_from_slice(&(MAX_PACKET as u32 + 1).to_be_bytes());
        let e = read_packet(&mut Cursor::new(&huge)).unwrap_err();
        assert!(e.to_string().contains("bytes"), "{e}");
    }

    #[test]
    fn no_server_at_the_socket_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mixer = Arc::new(Mutex::new(Mixer::new()));
        let lost = super::lost::new_slot();
        // Nothing there.
        let path = dir.path().join("native");
        let Err(why) = open_at(&path, Arc::clone(&mixer), Arc::clone(&lost)) else {
            panic!("opened a stream on nothing");
        };
        assert!(why.contains("cannot reach the sound server"), "{why}");
        // A server that hangs up at once.
        let listener = UnixListener::bind(&path).unwrap();
        let server = std::thread::spawn(move || drop(listener.accept()));
        let Err(why) = open_at(&path, mixer, lost) else {
            panic!("opened a stream on a server that hung up");
        };
        server.join().unwrap();
        assert!(why.contains("refused a stream"), "{why}");
    }

    /// A server in a thread, speaking the protocol with the crate's own
    /// server-side encoders: it answers the handshake (without a sink
    /// description), asks for data twice, answers timing queries, checks
    /// every sample it gets, then hangs up mid-song.
    fn fake_server(listener: UnixListener) -> Result<usize, String> {
        use pulseaudio::protocol::{self as p, Command};
        use std::io::BufReader;
        let (sock, _) = listener.accept().map_err(|e| e.to_string())?;
        let mut w = sock.try_clone().map_err(|e| e.to_string())?;
        let mut r = BufReader::new(sock);
        let v = p::MAX_VERSION;
        let e = |e: p::ProtocolError| e.to_string();
        let mut got = 0usize;
        let mut requests = 0;
        loop {
            let pk = read_packet(&mut r).map_err(|e| e.to_string())?;
            if pk.channel == 3 {
                // Stream data: the mixer's song, 0.5 on both sides.
                for b in pk.payload.chunks_exact(4) {
                    let x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    if (x - 0.5).abs() > 1e-4 {
                        return Err(format!("sample {got}: {x}"));
                    }
                    got += 1;
                }
                if requests < 2 {
                    requests += 1;
                    let req = Command::Request(p::Request {
                        channel: 3,
                        length: 4000,
                    });
                    p::write_command_message(&mut w, u32::MAX, &req, v).map_err(e)?;
                } else {
                    return Ok(got); // hangs up: the server went away
                }
                continue;
            }
            let (seq, cmd) =
                Command::read_tag_prefixed(&mut Cursor::new(&pk.payload[..]), v).map_err(e)?;
            match cmd {
                Command::Auth(_) => {
                    let reply = p::AuthReply {
                        version: v,
                        ..Default::default()
                    };
                    p::write_reply_message(&mut w, seq, &reply, v).map_err(e)?
                }
                Command::SetClientName(_) => {
                    let reply = p::SetClientNameReply { client_id: 1 };
                    p::write_reply_message(&mut w, seq, &reply, v).map_err(e)?
                }
                Command::GetSinkInfo(_) => {
                    p::write_error(&mut w, seq, &p::PulseError::NoEntity).map_err(e)?
                }
                Command::CreatePlaybackStream(params) => {
                    let full = params
                        .cvolume
                        .is_some_and(|v| v.channels() == [p::Volume::NORM; 2]);
                    if !full {
                        return Err(format!("volume {:?}", params.cvolume));
                    }
                    let reply = p::CreatePlaybackStreamReply {
                        channel: 3,
                        stream_index: 9,
                        requested_bytes: 3840,
                        sample_spec: params.sample_spec,
                        channel_map: params.channel_map,
                        sink_name: Some(c"fake_sink".to_owned()),
                        stream_latency: 20_000,
                        ..Default::default()
                    };
                    p::write_reply_message(&mut w, seq, &reply, v).map_err(e)?
                }
                Command::GetPlaybackLatency(q) => {
                    let reply = p::PlaybackLatency {
                        sink_usec: 20_000,
                        source_usec: 0,
                        playing: true,
                        local_time: q.now,
                        remote_time: q.now,
                        write_offset: 0,
                        read_offset: 0,
                        underrun_for: 0,
                        playing_for: 0,
                    };
                    p::write_reply_message(&mut w, seq, &reply, v).map_err(e)?
                }
                other => return Err(format!("unexpected {other:?}")),
            }
        }
    }

    #[test]
    fn a_stream_plays_the_mixer_and_a_vanished_server_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("native");
        let listener = UnixListener::bind(&path).unwrap();
        let server = std::thread::spawn(move || fake_server(listener));
        let song = crate::audio::Pcm::new(48_000, 1, vec![16_384; 48_000]).unwrap();
        let mixer = Arc::new(Mutex::new(Mixer::new()));
        {
            let mut m = mixer.lock().unwrap();
            m.set_song(Some(Arc::new(song)));
            m.play_from(0.0);
        }
        let lost = super::lost::new_slot();
        let opened = open_at(&path, Arc::clone(&mixer), Arc::clone(&lost));
        let (stream, device) = match opened {
            Ok(o) => o,
            Err(e) => panic!("{e}; the server: {:?}", server.join()),
        };
        // No sink description: the stream's sink name.
        assert_eq!(device, "fake_sink");
        // 3840 bytes first, then two requests of 4000 (whole frames: 3840
        // and 4000 bytes): 2960 samples, all as the mixer made them.
        assert_eq!(server.join().unwrap(), Ok((3840 + 4000 + 4000) / 4));
        let t0 = std::time::Instant::now();
        while !super::lost::is_set(&lost) && t0.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let why = super::lost::take(&lost).expect("the loss is reported");
        assert!(why.contains("sound server"), "{why}");
        // The clock the mixer was given reached it: the heard position is
        // known while playing.
        assert!(mixer.lock().unwrap().heard_position(t0).is_some());
        drop(stream); // joins the thread; must not hang
    }
}
