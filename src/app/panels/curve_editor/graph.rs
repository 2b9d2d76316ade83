//! The graphs under the boxes: the actual channel values over time around
//! the segment, updating live while dragging, with a ghost of the values
//! from before the drag.

use egui::Color32;
use egui_plot::{Legend, Line, LineStyle, Plot, Points, VLine};

use super::{RotationPlot, State, Target, channel_color};
use crate::app::panels::PanelCtx;
use crate::vmd::evaluate::{self, camera_at};
use crate::vmd::{CameraChannel, Curve};

/// One plotted series: name, colour, points (frame, value).
struct Series {
    name: String,
    color: Color32,
    points: Vec<[f64; 2]>,
    ghost: Option<Vec<[f64; 2]>>,
}

/// Frames to sample between `lo` and `hi` (at most ~600 samples, at least
/// every frame when the window is short).
fn sample_frames(lo: u32, hi: u32) -> Vec<f64> {
    let span = f64::from(hi.saturating_sub(lo)).max(1.0);
    let n = ((span * 4.0) as usize).clamp(2, 600);
    (0..=n)
        .map(|i| f64::from(lo) + span * i as f64 / n as f64)
        .collect()
}

/// The window shown: from the key before A (or A) to the key after B, with
/// some frames of margin when the track has no key there.
fn window(frames: &[u32], b_pos: usize) -> (u32, u32) {
    let lo = b_pos
        .checked_sub(2)
        .map(|p| frames[p])
        .or_else(|| b_pos.checked_sub(1).map(|p| frames[p]))
        .unwrap_or_else(|| frames[b_pos].saturating_sub(15));
    let hi = frames
        .get(b_pos + 1)
        .copied()
        .unwrap_or_else(|| frames[b_pos].saturating_add(15));
    (lo, hi.max(lo + 1))
}

fn quat_angle_between(a: [f32; 4], b: [f32; 4]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(y))
        .sum::<f64>();
    let la: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let lb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if la < 1e-12 || lb < 1e-12 {
        return 0.0;
    }
    2.0 * (dot.abs() / (la * lb)).clamp(0.0, 1.0).acos().to_degrees()
}

pub(super) fn value_graphs(ui: &mut egui::Ui, cx: &PanelCtx, state: &mut State, target: Target) {
    ui.horizontal(|ui| {
        ui.strong("Value over time");
        if matches!(target, Target::Bone(_)) {
            ui.selectable_value(
                &mut state.rotation_plot,
                RotationPlot::AngleFromA,
                "Rotation: angle from previous key",
            );
            ui.selectable_value(
                &mut state.rotation_plot,
                RotationPlot::Euler,
                "Rotation: Euler",
            );
        }
    });
    let ghost: Option<Vec<Curve>> = state
        .drag
        .as_ref()
        .filter(|_| state.show_ghost)
        .map(|d| d.ghost.clone());
    let (groups, keys, segment) = match target {
        Target::Bone(i) => bone_series(cx, i, state.rotation_plot, ghost.as_deref()),
        Target::Camera(i) => camera_series(cx, i, ghost.as_deref()),
    };
    let seg = segment;
    for (title, unit, series) in groups {
        // A group whose values never change in the window gets one line.
        let flat = series.iter().all(|s| {
            s.points
                .first()
                .is_none_or(|p0| s.points.iter().all(|p| (p[1] - p0[1]).abs() < 1e-6))
        });
        if flat {
            let v = series
                .first()
                .and_then(|s| s.points.first())
                .map_or(0.0, |p| p[1]);
            ui.weak(format!("{title}: constant ({v:.3} {unit}) around this key"));
            continue;
        }
        ui.label(format!("{title} ({unit})"));
        let link = egui::Id::unique("vmd-studio-curve-editor-plots");
        // The playhead, drawn only inside the plotted span (a VLine widens the bounds).
        let (lo, hi) = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p[0]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                (l.min(x), h.max(x))
            });
        let playhead = Some(cx.shared.transport.frame).filter(|f| (lo..=hi).contains(f));
        Plot::new(("curve-editor-plot", title))
            .height(150.0)
            .legend(Legend::default().background_alpha(0.6))
            .link_axis(link, [true, false])
            .link_cursor(link, [true, false])
            .x_axis_label("frame")
            .show(ui, |pu| {
                // Unnamed items stay out of the legend.
                if let Some(f) = playhead {
                    pu.vline(VLine::new("", f).color(Color32::from_rgb(230, 80, 60)));
                }
                if let Some((a, b)) = seg {
                    pu.vline(
                        VLine::new("", a)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_dense()),
                    );
                    pu.vline(VLine::new("", b).color(Color32::LIGHT_GRAY));
                }
                for s in series {
                    if let Some(g) = s.ghost {
                        pu.line(
                            Line::new("before drag", g)
                                .color(s.color.gamma_multiply(0.5))
                                .style(LineStyle::dashed_loose())
                                .allow_band(false),
                        );
                    }
                    let marks: Vec<[f64; 2]> = keys
                        .iter()
                        .filter_map(|&f| {
                            s.points
                                .iter()
                                .find(|p| (p[0] - f64::from(f)).abs() < 1e-9)
                                .copied()
                        })
                        .collect();
                    pu.line(
                        Line::new(s.name.clone(), s.points)
                            .color(s.color)
                            .width(1.8)
                            .allow_band(false),
                    );
                    // Same name as the line: one legend entry for both.
                    pu.points(Points::new(s.name, marks).color(s.color).radius(3.0));
                }
            });
    }
    if let Some((a, b)) = seg {
        ui.weak(format!(
            "Dashed line: frame {a} (A); solid: frame {b} (this key). Dots mark keys."
        ));
    }
}

type Groups = Vec<(&'static str, &'static str, Vec<Series>)>;

/// Sample frames including every key frame inside the window exactly.
fn frames_with_keys(lo: u32, hi: u32, keys: &[u32]) -> Vec<f64> {
    let mut f = sample_frames(lo, hi);
    f.extend(
        keys.iter()
            .filter(|&&k| k >= lo && k <= hi)
            .map(|&k| f64::from(k)),
    );
    f.sort_by(f64::total_cmp);
    f.dedup();
    f
}

fn bone_series(
    cx: &PanelCtx,
    i: u32,
    mode: RotationPlot,
    ghost: Option<&[Curve]>,
) -> (Groups, Vec<u32>, Option<(f64, f64)>) {
    let m = &cx.doc.motion;
    let Some(key) = m.bones.get(i as usize) else {
        return (Vec::new(), Vec::new(), None);
    };
    let Some(track) = cx.doc.index.bone(key.name_key()) else {
        return (Vec::new(), Vec::new(), None);
    };
    let frames: Vec<u32> = track
        .keys
        .iter()
        .map(|&k| m.bones[k as usize].frame())
        .collect();
    let Some(pos) = track.keys.iter().position(|&k| k == i) else {
        return (Vec::new(), Vec::new(), None);
    };
    let (lo, hi) = window(&frames, pos);
    let prev = pos.checked_sub(1).map(|p| &m.bones[track.keys[p] as usize]);
    let seg = prev.map(|a| (f64::from(a.frame()), f64::from(key.frame())));
    let samples = frames_with_keys(lo, hi, &frames);
    // The values the poses use: the document's evaluation cache.
    let Some(ti) = cx
        .doc
        .index
        .bones
        .iter()
        .position(|t| std::ptr::eq(t, track))
    else {
        return (Vec::new(), Vec::new(), None);
    };
    let poses: Vec<_> = samples
        .iter()
        .map(|&f| (f, cx.doc.cache.bone_at(ti, f)))
        .collect();
    // The pose the rotation angle is measured from: key A (or B itself).
    let q_ref = prev.map_or(key.rotation(), |a| a.rotation());

    // Ghost: the segment A → B evaluated with the curves from before the drag.
    let ghost_pose = |f: f64| -> Option<([f32; 3], [f32; 4])> {
        let (a, g) = (prev?, ghost?);
        let (fa, fb) = (f64::from(a.frame()), f64::from(key.frame()));
        if f < fa || f > fb || fb <= fa {
            return None;
        }
        let t = (f - fa) / (fb - fa);
        let (pa, pb) = (a.position(), key.position());
        let p = std::array::from_fn(|ax| {
            let w = g.get(ax).map_or(t, |c| c.weight(t));
            (f64::from(pa[ax]) + (f64::from(pb[ax]) - f64::from(pa[ax])) * w) as f32
        });
        let wr = g.get(3).map_or(t, |c| c.weight(t));
        Some((p, evaluate::slerp(a.rotation(), key.rotation(), wr)))
    };
    let ghost_line = |value: &dyn Fn([f32; 3], [f32; 4]) -> f64| -> Option<Vec<[f64; 2]>> {
        ghost?;
        let v: Vec<[f64; 2]> = samples
            .iter()
            .filter_map(|&f| ghost_pose(f).map(|(p, q)| [f, value(p, q)]))
            .collect();
        (!v.is_empty()).then_some(v)
    };

    let mut position = Vec::new();
    for (ax, name) in ["X", "Y", "Z"].iter().enumerate() {
        position.push(Series {
            name: format!("{name} move"),
            color: channel_color(ax),
            points: poses
                .iter()
                .map(|(f, p)| [*f, f64::from(p.position[ax])])
                .collect(),
            ghost: ghost_line(&|p, _| f64::from(p[ax])),
        });
    }
    let mut rotation = Vec::new();
    match mode {
        RotationPlot::AngleFromA => rotation.push(Series {
            name: "angle from A".into(),
            color: channel_color(3),
            points: poses
                .iter()
                .map(|(f, p)| [*f, quat_angle_between(q_ref, p.rotation)])
                .collect(),
            ghost: ghost_line(&|_, q| quat_angle_between(q_ref, q)),
        }),
        RotationPlot::Euler => {
            let euler_colors = [channel_color(0), channel_color(1), channel_color(2)];
            for (ax, name) in ["X", "Y", "Z"].iter().enumerate() {
                rotation.push(Series {
                    name: format!("rotation {name}"),
                    color: euler_colors[ax],
                    points: poses
                        .iter()
                        .map(|(f, p)| {
                            [*f, f64::from(evaluate::euler_deg_from_quat(p.rotation)[ax])]
                        })
                        .collect(),
                    ghost: ghost_line(&|_, q| f64::from(evaluate::euler_deg_from_quat(q)[ax])),
                });
            }
        }
    }
    let keys_in = frames.into_iter().filter(|&f| f >= lo && f <= hi).collect();
    (
        vec![
            ("Position", "MMD units", position),
            ("Rotation", "degrees", rotation),
        ],
        keys_in,
        seg,
    )
}

fn camera_series(
    cx: &PanelCtx,
    i: u32,
    ghost: Option<&[Curve]>,
) -> (Groups, Vec<u32>, Option<(f64, f64)>) {
    let m = &cx.doc.motion;
    let idx = &cx.doc.index;
    let Some(key) = m.cameras.get(i as usize) else {
        return (Vec::new(), Vec::new(), None);
    };
    let frames: Vec<u32> = idx
        .camera
        .iter()
        .map(|&k| m.cameras[k as usize].frame())
        .collect();
    let Some(pos) = idx.camera.iter().position(|&k| k == i) else {
        return (Vec::new(), Vec::new(), None);
    };
    let (lo, hi) = window(&frames, pos);
    let prev = pos
        .checked_sub(1)
        .map(|p| &m.cameras[idx.camera[p] as usize]);
    let seg = prev.map(|a| (f64::from(a.frame()), f64::from(key.frame())));
    let samples = frames_with_keys(lo, hi, &frames);
    let states: Vec<_> = samples
        .iter()
        .filter_map(|&f| camera_at(m, idx, f).map(|s| (f, s)))
        .collect();
    // Ghost over A → B (not across a cut) with the curves from before the drag.
    let ghost_line = |c: usize, va: f64, vb: f64| -> Option<Vec<[f64; 2]>> {
        let (a, g) = (prev?, ghost?);
        if evaluate::is_cut(a.frame(), key.frame()) {
            return None;
        }
        let (fa, fb) = (f64::from(a.frame()), f64::from(key.frame()));
        let curve = g.get(c)?;
        let v: Vec<[f64; 2]> = samples
            .iter()
            .filter(|&&f| f >= fa && f <= fb && fb > fa)
            .map(|&f| [f, va + (vb - va) * curve.weight((f - fa) / (fb - fa))])
            .collect();
        (!v.is_empty()).then_some(v)
    };
    let (ta, tb) = prev.map_or((key.target(), key.target()), |a| (a.target(), key.target()));
    let (ra, rb) = prev.map_or((key.rotation(), key.rotation()), |a| {
        (a.rotation(), key.rotation())
    });
    let (da, db) = prev.map_or((key.distance(), key.distance()), |a| {
        (a.distance(), key.distance())
    });
    let (fa, fb) = prev.map_or((key.fov(), key.fov()), |a| (a.fov(), key.fov()));

    let target: Vec<Series> = (0..3)
        .map(|ax| Series {
            name: CameraChannel::ALL[ax].label().to_string(),
            color: channel_color(ax),
            points: states
                .iter()
                .map(|(f, s)| [*f, f64::from(s.target[ax])])
                .collect(),
            ghost: ghost_line(ax, f64::from(ta[ax]), f64::from(tb[ax])),
        })
        .collect();
    let rotation: Vec<Series> = (0..3)
        .map(|ax| Series {
            name: format!("rotation {}", ["X", "Y", "Z"][ax]),
            color: channel_color(ax),
            points: states
                .iter()
                .map(|(f, s)| [*f, f64::from(s.rotation[ax]).to_degrees()])
                .collect(),
            ghost: ghost_line(
                3,
                f64::from(ra[ax]).to_degrees(),
                f64::from(rb[ax]).to_degrees(),
            ),
        })
        .collect();
    let distance = vec![Series {
        name: "distance".into(),
        color: channel_color(4),
        points: states
            .iter()
            .map(|(f, s)| [*f, f64::from(s.distance)])
            .collect(),
        ghost: ghost_line(4, f64::from(da), f64::from(db)),
    }];
    let fov = vec![Series {
        name: "field of view".into(),
        color: channel_color(5),
        points: states.iter().map(|(f, s)| [*f, f64::from(s.fov)]).collect(),
        ghost: ghost_line(5, f64::from(fa), f64::from(fb)),
    }];
    let keys_in = frames.into_iter().filter(|&f| f >= lo && f <= hi).collect();
    (
        vec![
            ("Target", "MMD units", target),
            ("Rotation", "degrees", rotation),
            ("Distance", "MMD units", distance),
            ("Field of view", "degrees", fov),
        ],
        keys_in,
        seg,
    )
}
