#!/usr/bin/env bash
# Issue 37 side by side: ours (examples/pose_step) and babylon-mmd 1.3.0
# (bench.mjs), alternated ours, theirs, ours, theirs ... ROUNDS times per
# row. Prints one JSON line per run (tagged "side") and the load average.
#
#   tools/babylon-bench/run.sh [ROUNDS]      (from anywhere)
#
# Env: POSE_STEP  our binary (default $CARGO_TARGET_DIR or target, release,
#                 examples/pose_step; build it first, see README.md)
#      VMD_CORPUS the corpus (default ../shared/corpus from the repo root)
#      ROWS       an extended regular expression: only the rows it matches
#                 run (default: every row), e.g. ROWS='^generated'
#      GENERATED_DIR  where the generated case's generated.pmx and
#                 generated_sway.vmd are (default tools/babylon-bench/
#                 generated); written with examples/write_generated.rs
#                 (cargo run, release) when a generated row runs and they
#                 are absent
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rounds="${1:-3}"
pose_step="${POSE_STEP:-${CARGO_TARGET_DIR:-$root/target}/release/examples/pose_step}"
export VMD_CORPUS="${VMD_CORPUS:-$root/../shared/corpus}"
[ -x "$pose_step" ] || { echo "no $pose_step (build the example first)" >&2; exit 2; }
[ -d "$here/node_modules/babylon-mmd" ] || { echo "run npm ci in $here first" >&2; exit 2; }

# The --fixed-step 120 rows: babylon-mmd with Bullet stepping at 1/120 s
# (two steps per call, as ours); pose_step ignores the flag.
# The generated rows: ours poses the model built in memory
# (benches/support/physics_model.rs), babylon-mmd the files
# examples/write_generated.rs writes from it (checked field by field there).
all_rows=("mei" "mmt" "sample" "mei --physics" "sample --physics"
      "mei --physics --fixed-step 120" "sample --physics --fixed-step 120"
      "generated" "generated --physics" "generated --physics --fixed-step 120")
rows=()
for row in "${all_rows[@]}"; do
  if [ -z "${ROWS:-}" ] || [[ "$row" =~ $ROWS ]]; then rows+=("$row"); fi
done
[ "${#rows[@]}" -gt 0 ] || { echo "ROWS='$ROWS' matches no row" >&2; exit 2; }
export GENERATED_DIR="${GENERATED_DIR:-$here/generated}"
for row in "${rows[@]}"; do
  if [[ "$row" == generated* ]]; then
    if [ ! -f "$GENERATED_DIR/generated.pmx" ] || [ ! -f "$GENERATED_DIR/generated_sway.vmd" ]; then
      (cd "$root" && cargo run --release --no-default-features --example write_generated -- "$GENERATED_DIR") >&2
    fi
    break
  fi
done
echo "# $(date -u +%FT%TZ) nproc=$(nproc) cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# node $(node --version) load: $(cut -d' ' -f1-3 /proc/loadavg)"
for row in "${rows[@]}"; do
  for ((r = 1; r <= rounds; r++)); do
    # shellcheck disable=SC2086
    echo "{\"side\":\"ours\",\"row\":\"$row\",\"round\":$r,\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"r\":$("$pose_step" $row --steps 3000 --warmup 30)}"
    # shellcheck disable=SC2086
    echo "{\"side\":\"babylon-mmd\",\"row\":\"$row\",\"round\":$r,\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"r\":$(cd "$here" && node --import ./register-hook.mjs bench.mjs $row --steps 3000 --warmup 30)}"
  done
done
echo "# end load: $(cut -d' ' -f1-3 /proc/loadavg)"
