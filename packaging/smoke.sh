#!/usr/bin/env bash
# Smoke test of the Linux bundle, from its tar.gz, against an installed package:
#   bash packaging/smoke.sh BUNDLE.tar.gz [REFERENCE_BAGEL_STUDIO]
# Unpacks the bundle into a fresh folder and runs it with an empty environment (no Python, no
# PYTHONPATH, a fresh HOME): it must print its version, import the demo data, accept items and
# export a release byte-identical to the one the reference installation (default: .venv's
# bagel-studio; build.sh passes the wheel it just installed) exports from the same steps, decode a
# clip to the same measurements, build the demo and open the desk on a virtual screen showing the
# first item (the screenshot must not be blank). Prints the bundle's size and its cold start time to
# the first item. Exit 0 when all of that holds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tarball="$(realpath "${1:?usage: smoke.sh BUNDLE.tar.gz [REFERENCE_BAGEL_STUDIO]}")"
reference="$(realpath "${2:-$here/.venv/bin/bagel-studio}")"
ref_python="$(dirname "$reference")/python"
check() { "$ref_python" "$here/packaging/smoke_check.py" "$@"; }
fail() { echo "smoke: FAILED: $*" >&2; exit 1; }
seed=20251123

work="$(mktemp -d "${TMPDIR:-/tmp}/bagel-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/config-bundle" "$work/config-reference"
tar -xzf "$tarball" -C "$work"
app="$work/bagel-studio"
exe="$app/bagel-studio"
resources="$app/_internal/bagel_studio/resources"
[ -x "$exe" ] || fail "no executable bagel-studio at the top of $tarball"
[ -d "$resources/demo" ] || fail "the bundle holds no demo resources"

# The bundle runs with nothing from this machine's Python world.
bundle() {
  env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8 \
    BAGEL_STUDIO_CONFIG_DIR="$work/config-bundle" "$exe" "$@"
}
ref() { BAGEL_STUDIO_CONFIG_DIR="$work/config-reference" "$reference" "$@"; }
allow_rejects() { local rc=0; "$@" >"$work/last.log" 2>&1 || rc=$?; [ "$rc" -le 1 ] || { cat "$work/last.log" >&2; return "$rc"; }; }

echo "smoke: version"
version="$(bundle --version)"
[ "$version" = "$(ref --version)" ] || fail "bundle says '$version', the reference '$(ref --version)'"
echo "  $version"

echo "smoke: every subcommand loads (they are imported by name, which PyInstaller cannot see)"
bundle --help >"$work/help.txt" || fail "bagel-studio --help failed"
if grep -i "unavailable" "$work/help.txt" >&2; then fail "a subcommand is missing from the bundle"; fi
mapfile -t commands < <(ref --help | sed -n 's/^    \([a-z][a-z-]*\) .*/\1/p; s/^    \([a-z][a-z-]*\)$/\1/p')
[ "${#commands[@]}" -ge 8 ] || fail "could not list the subcommands (${commands[*]})"
for command in "${commands[@]}"; do
  bundle "$command" --help >/dev/null || fail "bagel-studio $command --help failed in the bundle"
done
echo "  ${#commands[@]} subcommands: ${commands[*]}"

echo "smoke: the bundle's native parts (Qt, libsndfile, PortAudio, numba/LLVM, librosa)"
bundle --bundle-check "$resources/data/xeno_canto/XC625750.mp3" | sed 's/^/  /' \
  || fail "the bundle check failed"

echo "smoke: import the demo data and accept items (bundle and reference, separately)"
for who in bundle ref; do
  allow_rejects "$who" import "$work/$who.bagel" "$resources/data" "$resources/demo" \
    || fail "$who could not import the demo data"
  mapfile -t ids < <(check ids "$work/$who.bagel")
  [ "${#ids[@]}" -ge 40 ] || fail "$who imported only ${#ids[@]} items"
  # decide over many ids is all or nothing, and an item with a blocking flag refuses an accept:
  # accept the others, after the project's options (as docs/COMMANDS.md writes the command).
  mapfile -t acceptable < <(check acceptable "$work/$who.bagel")
  [ "${#acceptable[@]}" -ge 30 ] || fail "$who has only ${#acceptable[@]} acceptable items"
  "$who" decide "$work/$who.bagel" --curator smoke --accept "${acceptable[@]}" >"$work/last.log" \
    || { cat "$work/last.log" >&2; fail "$who could not record decisions"; }
  "$who" stats "$work/$who.bagel" --json >"$work/stats-$who.json" || fail "$who stats failed"
done
check same-json "$work/stats-bundle.json" "$work/stats-ref.json" \
  || fail "the bundle's project differs from the reference's"
echo "  ${#ids[@]} items, the same statistics"

echo "smoke: export the bundle's project (bundle and reference)"
# Decisions carry their time, so the two projects' provenance differs: both export one project.
for who in bundle ref; do
  "$who" export "$work/bundle.bagel" "$work/release-$who" --seed "$seed" >"$work/export-$who.log" \
    || { cat "$work/export-$who.log" >&2; fail "$who could not export"; }
done
diff -r "$work/release-bundle" "$work/release-ref" >"$work/release.diff" \
  || { head -c 3000 "$work/release.diff" >&2; fail "the bundle's release differs from the reference's"; }
echo "  releases identical ($(find "$work/release-bundle" -type f | wc -l) files)"

echo "smoke: decode a clip"
clip="$resources/data/xeno_canto/XC625750.mp3"
bundle audio "$clip" --json >"$work/audio-bundle.json" || fail "the bundle could not decode $clip"
ref audio "$clip" --json >"$work/audio-ref.json"
check same-json "$work/audio-bundle.json" "$work/audio-ref.json" \
  || fail "the bundle measures the clip differently from the reference"
echo "  $(grep -m1 '"duration_s"' "$work/audio-bundle.json" | tr -d ' ,')"

echo "smoke: build the demo and open the desk on a virtual screen"
printf 'curator = "smoke"\n' >"$work/config-bundle/preferences.toml"
on_screen() {
  # Inside xvfb-run: DISPLAY and XAUTHORITY are passed on, nothing else. Writes SHOT.ns, the time
  # from starting the executable to its exit.
  timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
    shot="$1"; shift
    start=$(date +%s%N)
    rc=0
    env -i PATH=/usr/bin:/bin HOME="'"$work/home"'" LANG=C.UTF-8 DISPLAY="$DISPLAY" \
      XAUTHORITY="${XAUTHORITY:-}" BAGEL_STUDIO_CONFIG_DIR="'"$work/config-bundle"'" \
      BAGEL_STUDIO_SCREENSHOT="$shot" BAGEL_STUDIO_WINDOW_SIZE=1280x800 "$@" || rc=$?
    echo $(( $(date +%s%N) - start )) >"$shot.ns"
    exit "$rc"' _ "$@"
}
on_screen "$work/demo.png" "$exe" demo >"$work/demo.log" 2>&1 \
  || { cat "$work/demo.log" >&2; fail "bagel-studio demo did not open and close cleanly"; }
check nonblank "$work/demo.png" 1280 800 || fail "the desk's screenshot is blank"
demo_project="$work/config-bundle/data/demo.bagel"
[ -f "$demo_project" ] || fail "the demo project was not built at $demo_project"

echo "smoke: cold start to the first item (open the demo project again)"
# The desk's test hook grabs the window 0.6 s after the first item is shown, then quits.
on_screen "$work/open.png" "$exe" open "$demo_project" >"$work/open.log" 2>&1 \
  || { cat "$work/open.log" >&2; fail "bagel-studio open did not open and close cleanly"; }
check nonblank "$work/open.png" 1280 800 || fail "the desk's screenshot is blank"
if [ -n "${SMOKE_KEEP_SCREENSHOT:-}" ]; then cp "$work/open.png" "$SMOKE_KEEP_SCREENSHOT"; fi

echo "smoke: desktop entry"
env -i PATH=/usr/bin:/bin HOME="$work/home" XDG_DATA_HOME="$work/share" \
  "$app/install-desktop-entry.sh" >/dev/null || fail "install-desktop-entry.sh failed"
entry="$work/share/applications/io.github.bagelstudio.BagelStudio.desktop"
grep -qx "Exec=\"$exe\" open %f" "$entry" || fail "the installed entry does not start $exe"
[ -f "$work/share/icons/hicolor/256x256/apps/io.github.bagelstudio.BagelStudio.png" ] \
  || fail "the icon was not installed"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$entry"; fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$app/share/metainfo/io.github.bagelstudio.BagelStudio.metainfo.xml" \
    >/dev/null || fail "the AppStream metainfo does not validate"
fi
echo "  installed into a fresh XDG_DATA_HOME; Exec runs the unpacked executable"

size_dir="$(du -sh "$app" | cut -f1)"
size_tar="$(du -h "$tarball" | cut -f1)"
awk -v ns="$(cat "$work/open.png.ns")" 'BEGIN { printf "smoke: cold start to the first item %.2f s (start to exit after the window grab, minus the hook'"'"'s 0.6 s settle)\n", ns / 1e9 - 0.6 }'
echo "smoke: bundle size $size_dir unpacked, $size_tar as tar.gz"
echo "smoke: OK"
