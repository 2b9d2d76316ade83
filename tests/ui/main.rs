//! Every GUI test, driven with egui_kittest, in one test binary: one module
//! per area (each links the whole app with egui and wgpu, ~130 MB in a debug
//! build, so one binary instead of one per file saves gigabytes of disk and
//! minutes of linking). Run one area with `cargo test --test ui app::`.
#![cfg(feature = "gui")]

#[path = "../audio_support/mod.rs"]
mod audio_support;
#[path = "../common/mod.rs"]
mod common;

mod app;
mod bake_range;
mod bone_pick;
mod cmdline;
mod collect;
mod curve_editor;
mod dock;
mod export_video;
mod gizmo;
mod jobs;
mod merge;
mod motion_path_view;
mod newuser;
mod newuser2;
mod physics;
mod physics_actors;
mod placement;
mod project;
mod recovery;
mod save;
mod save_all;
mod scene;
mod set;
mod set_background;
mod set_gizmo;
mod set_lane;
mod set_stage_motion;
mod simplify;
mod sizing;
mod song;
mod sound_server;
mod timeline_keys;
mod toolbox;
mod toolbox_scope;
mod ux;
mod value_graph;
mod viewport;
mod viewport_gpu;
mod views;
mod vpd_gui;
