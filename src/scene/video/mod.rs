//! Video export's GPU-free part: which pictures a frame range makes, the
//! `ffmpeg` command line (H.264 yuv420p + AAC in MP4, raw RGBA frames on
//! stdin), lining the song up with the first picture, finding `ffmpeg`, and
//! the encoder process itself ([`VideoWriter`]): a bounded channel feeds a
//! writer thread that pipes frames into ffmpeg while the caller renders the
//! next one, and the MP4 is written to a temporary file beside the target
//! that is renamed over it only when ffmpeg succeeded: a cancelled or failed
//! export leaves nothing behind.
//!
//! No GUI or GPU type: the renderer's loop (`render::sequence`) feeds it
//! pictures, the CLI and the app call that loop.

mod ffmpeg;
mod frames;
mod plan;
mod writer;

pub use ffmpeg::{
    FfmpegMissing, HOW_TO_GET_FFMPEG, ffmpeg_args, find_on_path, locate_ffmpeg, locate_ffmpeg_in,
};
pub use frames::{MAX_SIDE, VideoFrame, VideoFrames, read_ppm};
pub use plan::{Aspect, MMD_FPS, PictureTimes, SongAlign, SongInput, VideoSpec, clock, time_left};
pub use writer::{QUEUE_PICTURES, VideoError, VideoWriter, free_name, partial_file_for};
