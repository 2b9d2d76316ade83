#!/usr/bin/env bash
# Builds the release vmd-studio.exe for 64-bit Windows from Linux
# (target x86_64-pc-windows-gnu, with sound: Windows always has it) and
# prints where it is. Needs rustup (the target is added if missing) and the
# MinGW-w64 linker (Debian/Ubuntu: apt-get install gcc-mingw-w64-x86-64),
# which .cargo/config.toml names. Extra arguments go to cargo, e.g.
# `scripts/build-windows.sh --bin vmd-studio`.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
linker=x86_64-w64-mingw32-gcc

if ! command -v "$linker" >/dev/null 2>&1; then
  echo "error: the MinGW-w64 linker ($linker) is not installed." >&2
  echo "  Debian/Ubuntu: sudo apt-get install gcc-mingw-w64-x86-64" >&2
  echo "  Fedora: sudo dnf install mingw64-gcc    Arch: sudo pacman -S mingw-w64-gcc" >&2
  exit 1
fi

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  if ! command -v rustup >/dev/null 2>&1; then
    echo "error: rustup is not installed; it is needed to add the $target target" >&2
    exit 1
  fi
  echo "adding the Rust target $target (once)"
  rustup target add "$target"
fi

start=$(date +%s)
cargo build --release --target "$target" --features sound "$@"
secs=$(($(date +%s) - start))

exe="target/$target/release/vmd-studio.exe"
if [ ! -f "$exe" ]; then
  echo "error: the build finished but $exe is missing" >&2
  exit 1
fi
echo "built in ${secs} s: $(pwd)/$exe ($(du -h "$exe" | cut -f1))"
echo "copy it to Windows and run it (double-click, or \`vmd-studio.exe --help\` in a terminal)"
