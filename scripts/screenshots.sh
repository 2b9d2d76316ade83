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
shot() {
  local out=$1; shift
  timeout 240 xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --size 1600x1000 --screenshot "screenshots/$out" "$@"
}
mkdir -p screenshots
shot dance_dope_sheet.png --panel curves --frame 1200 --select "左腕@1209" "$C/webmmd__GimmeGimme_with_emotion.vmd"
shot camera_file.png --panel curves --frame 1000 --select "camera@1000" "$C/webmmd__GimmexGimme.vmd"
shot mei_wait.png --panel curves --frame 40 --select "上半身@30" "$C/mmdagent__mei_wait.vmd"
shot curve_editor_bone.png --panel curves --frame 30 --select "左腕@40" assets/demo_dance.vmd
shot curve_editor_camera.png --panel curves --frame 30 --select "camera@45" assets/demo_camera.vmd
shot forensics.png --panel forensics --select "D4@60" "$C/babylonmmd__physics_toggle_test_yyb10th.vmd"
shot preview_camera_after_cut.png --panel preview --view camera --frame 1000 --select "camera@1000" "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot preview_free_frustum.png --panel preview --view free:-20,35,-80 --frame 1000 "$C/webmmd__GimmeGimme_with_emotion.vmd" "$C/webmmd__GimmexGimme.vmd"
shot preview_demo.png --panel preview --view camera --frame 40 assets/demo_dance.vmd assets/demo_camera.vmd
ls -la screenshots
