//! Plays a song through the app's sound output, as the app does, and says
//! what it hears: `cargo run --release --example play_song -- SONG [SECONDS]`.
//! Prints the output's status, the heard position against the wall clock
//! every half second, and what happens when the sound server goes away
//! (stop it mid-song: the output reports it, reopens or falls silent, and
//! this goes on without sound).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vmd_studio::app::sound::SoundOutput;
use vmd_studio::audio::decode_file;
use vmd_studio::progress::Progress;

fn main() -> Result<(), String> {
    let mut args = std::env::args_os().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: play_song SONG [SECONDS]")?);
    let seconds: f64 = args
        .next()
        .and_then(|s| s.to_str().and_then(|s| s.parse().ok()))
        .unwrap_or(5.0);
    let pcm = decode_file(&path, &Progress::default()).map_err(|e| e.to_string())?;
    let rate = f64::from(pcm.sample_rate());
    println!(
        "song: {:.2} s at {} Hz",
        pcm.duration_seconds(),
        pcm.sample_rate()
    );
    let mut out = SoundOutput::open();
    println!("status: {:?}", out.status());
    out.set_song(Some(Arc::new(pcm)));
    let t0 = Instant::now();
    out.with_mixer(|m| m.play_from(0.0));
    let mut next = 0.5;
    while t0.elapsed().as_secs_f64() < seconds {
        std::thread::sleep(Duration::from_millis(10));
        let now = Instant::now();
        if let Some(msg) = out.recover(now) {
            println!("{:7.3} s: {msg}", t0.elapsed().as_secs_f64());
            out.with_mixer(|m| m.play_from(t0.elapsed().as_secs_f64() * rate));
        }
        let t = t0.elapsed().as_secs_f64();
        if t >= next {
            next += 0.5;
            match out.heard_position() {
                Some(h) => println!(
                    "{t:7.3} s: heard {:7.3} s (wall − heard {:+6.1} ms)",
                    h / rate,
                    (t - h / rate) * 1000.0
                ),
                None => println!("{t:7.3} s: not live ({:?})", out.status()),
            }
        }
    }
    Ok(())
}
