#!/usr/bin/env bash
# Regenerates screenshots/*.png from the real app under Xvfb.
# Needs: xvfb (apt-get install -y xvfb), the corpus in ../shared/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
C="${VMD_CORPUS:-../shared/corpus}"
# BIN=path/to/vmd-studio to use an existing build (debug works, only slower).
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=./target/release/vmd-studio
fi
bin=$BIN
# shot OUT WIDTHxHEIGHT ARGS...: one window of that size on a screen of that size.
shot() {
  local out=$1 size=$2; shift 2
  timeout 300 xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --size "$size" --screenshot "screenshots/$out" "$@"
}
mkdir -p screenshots
# The scene: first start (the demo through its camera), and a corpus dance
# on the Mei model framed by a corpus camera, on one timeline.
shot scene_demo_1280x720.png 1280x720
shot scene_demo_1920x1080.png 1920x1080
shot scene_dance_camera_1280x720.png 1280x720 --panel preview --view camera --frame 1000 \
  "$C/mei/mei.pmd" "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot scene_dance_camera_1920x1080.png 1920x1080 --panel preview --view camera --frame 1000 \
  "$C/mei/mei.pmd" "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot dance_dope_sheet.png 1600x1000 --panel curves --select "左腕@1209" "$C/webmmd__GimmeGimme_with_emotion.vmd"
shot camera_file.png 1600x1000 --panel curves --select "camera@1000" "$C/webmmd__GimmexGimme.vmd"
shot mei_wait.png 1600x1000 --panel curves --select "上半身@30" "$C/mmdagent__mei_wait.vmd"
shot curve_editor_bone.png 1600x1000 --panel curves --select "左腕@40" assets/demo_dance.vmd
shot curve_editor_camera.png 1600x1000 --panel curves --select "camera@45" assets/demo_camera.vmd
shot forensics.png 1600x1000 --panel forensics --select "D4@60" "$C/babylonmmd__physics_toggle_test_yyb10th.vmd"
shot preview_camera_after_cut.png 1600x1000 --panel preview --view camera --select "camera@1000" "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot preview_free_frustum.png 1600x1000 --panel preview --view free:-20,35,-80 --frame 1000 "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot preview_demo.png 1600x1000 --panel preview --view camera --frame 40 assets/demo_dance.vmd assets/demo_camera.vmd
# What a curve does to the motion: the value graph of 左腕's track with its
# curve handles, and 左ひじ's motion path (dots per frame, keys, the edited
# segment) in the free view with the camera's eye path.
shot value_graph.png 1600x1000 --panel graph --select "左腕@40" assets/demo_dance.vmd assets/demo_camera.vmd
shot motion_path_free.png 1600x1000 --panel preview --view free:10,-30,-40 --frame 40 --select "左ひじ@40" assets/demo_dance.vmd assets/demo_camera.vmd
# The model renderer (issue 11): Mei through the demo camera in the 16:9 frame,
# the free view with the camera's frustum, and a storyboard of the corpus
# camera with the demo mannequin dancing the corpus dance (CLI, no window).
shot model_mei_camera.png 1600x1000 --panel preview --view camera --frame 50 "$C/mei/mei.pmd" "$C/mmdagent__mei_wait.vmd" assets/demo_camera.vmd
# Mei wearing the dance with the face motion merged on (as MMD loads both).
shot model_mei_face_camera.png 1600x1000 --panel preview --view camera --frame 15 "$C/mei/mei.pmd" "$C/mmdagent__mei_wait.vmd" assets/demo_camera.vmd --merge "$C/mmdagent__mei_happiness.vmd"
shot model_free_frustum.png 1600x1000 --panel preview --view free:-15,50,-75 --frame 50 "$C/mei/mei.pmd" "$C/mmdagent__mei_wait.vmd" assets/demo_camera.vmd
# Posing (issue 11): the rotation gizmo on Mei's selected left arm (the key
# selected in the dope sheet selects its bone in the view).
shot gizmo_mei_arm.png 1600x1000 --panel preview --view free:-8,28,-21,3,14.6,0 --frame 0 --select "左腕@0" "$C/mei/mei.pmd" "$C/mmdagent__mei_wait.vmd"
"$bin" storyboard "$C/webmmd__GimmexGimme.vmd" --model assets/demo_model.pmx \
  --motion "$C/webmmd__GimmeGimme_with_emotion.vmd" --size 192x108 --columns 12 -o screenshots/storyboard.png
# The song (issue 12): a generated 128 BPM song under the demo scene, its
# waveform lane and beat grid under the ruler, the shot list's beat distances.
song="$(mktemp -d)/demo_song.wav"
python3 scripts/make_song.py "$song" 40
shot scene_song_1280x720.png 1280x720 --frame 60 "$song"
shot scene_song_1920x1080.png 1920x1080 --frame 60 "$song"
# The set (issue 34): the corpus skybox, a generated floor (.x) and a
# generated box (.vac: attached to the right wrist) around the demo dancer,
# through its camera.
set_dir="$(mktemp -d)"
python3 - "$set_dir" <<'PY'
import sys, os
d = sys.argv[1]
def x(path, verts, faces, rgba, emissive):
    v = ",\n ".join(f"{a};{b};{c};" for a, b, c in verts)
    f = ",\n ".join(f"{len(q)};" + ",".join(map(str, q)) + ";" for q in faces)
    r, g, b, a = rgba
    er, eg, eb = emissive
    open(os.path.join(d, path), "w").write(
        f"xof 0302txt 0064\nMesh {{\n {len(verts)};\n {v};;\n {len(faces)};\n {f};;\n"
        f"MeshMaterialList {{ 1; {len(faces)}; " + ",".join("0" * len(faces)) + ";;\n"
        f"  Material {{ {r};{g};{b};{a};; 5; 0;0;0;; {er};{eg};{eb};; }}\n }}\n}}\n")
x("floor.x", [(-4, 0, -4), (-4, 0, 4), (4, 0, 4), (4, 0, -4)], [(0, 1, 2, 3)],
  (0.55, 0.5, 0.45, 1), (0.35, 0.32, 0.3))
h = 0.12
p = [(-h, -h, -h), (h, -h, -h), (h, h, -h), (-h, h, -h), (-h, -h, h), (h, -h, h), (h, h, h), (-h, h, h)]
x("box.x", p, [(0, 3, 2, 1), (4, 5, 6, 7), (0, 4, 7, 3), (1, 2, 6, 5), (3, 7, 6, 2), (0, 1, 5, 4)],
  (0.9, 0.15, 0.1, 0.99), (0.35, 0.05, 0.05))
open(os.path.join(d, "box.vac"), "wb").write("赤い箱\r\nbox.x\r\n1\r\n0,0,0\r\n0,0,0\r\n右手首\r\n".encode("shift_jis"))
PY
sky="$C/frontier/skydome_raymmd_sky_hemisphere/Sky with box.pmx"
shot scene_set_1280x720.png 1280x720 --frame 45 --stage "$sky" --stage "$set_dir/floor.x" "$set_dir/box.vac"
shot scene_set_1920x1080.png 1920x1080 --frame 45 --stage "$sky" --stage "$set_dir/floor.x" "$set_dir/box.vac"
# An MMD project (issue 35) whose model is not where the project says: the
# scene panel lists it with the path the project stores and Locate….
proj_dir="$(mktemp -d)"
cp "$C/frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_from_pmx_vmd.pmm" "$proj_dir/moved.pmm"
shot project_missing_1280x720.png 1280x720 "$proj_dir/moved.pmm"
ls -la screenshots
