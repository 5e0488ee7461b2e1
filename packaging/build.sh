#!/usr/bin/env bash
# Builds what a curator installs, on Debian/Ubuntu x86-64, in one command:
#   bash packaging/build.sh
# into dist/:
#   bagel_studio-VERSION-py3-none-any.whl, bagel_studio-VERSION.tar.gz   wheel and sdist (python -m build)
#   bagel-studio/                                                       the bundle (PyInstaller, one folder)
#   bagel-studio-VERSION-linux-x86_64.tar.gz                            the bundle, packed
# then installs the wheel into a clean virtual environment (build/wheel-venv, from PyPI), checks
# that it runs from there, and runs the bundle's smoke test (packaging/smoke.sh) against it.
# Takes a few minutes and about 2 GB of disk under build/.
# BAGEL_VENV=DIR builds with an existing environment that has the project's and the bundle's
# dependencies instead of setting up .venv.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
export PYTHONPATH="$here"  # this tree's package, whatever the environment has installed

venv_dir="${BAGEL_VENV:-.venv}"
if [ -z "${BAGEL_VENV:-}" ]; then
  bash packaging/setup.sh
  if ! .venv/bin/python -c "import PyInstaller, build" 2>/dev/null; then
    echo "build: installing the build tools into .venv"
    .venv/bin/python -m pip install -q -e ".[dev,bundle]"  # as setup.sh installs it
  fi
fi
python="$venv_dir/bin/python"
version="$("$python" -c 'import bagel_studio; print(bagel_studio.__version__)')"
bundle_tar="dist/bagel-studio-$version-linux-x86_64.tar.gz"

echo "== wheel and sdist"
mkdir -p build dist
rm -f dist/bagel_studio-*.whl dist/bagel_studio-*.tar.gz
"$python" -m build --outdir dist . >build/build.log 2>&1 || { tail -30 build/build.log >&2; exit 1; }
if grep -i -E "deprecat|would be ignored|absent from" build/build.log >&2; then
  echo "build: setuptools warned (above); fix pyproject.toml or setup.py" >&2
  exit 1
fi
rm -f build/build.log
wheel="dist/bagel_studio-$version-py3-none-any.whl"
ls -l "$wheel" "dist/bagel_studio-$version.tar.gz"

echo "== the wheel in a clean virtual environment"
venv=build/wheel-venv
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q "$wheel"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$wheel"
(
  # From elsewhere, with nothing of the source tree on the path.
  unset PYTHONPATH
  cd "$(mktemp -d)"
  export BAGEL_STUDIO_CONFIG_DIR="$PWD/config"
  "$here/$venv/bin/bagel-studio" --version
  "$here/$venv/bin/python" - <<'PY'
from pathlib import Path
import bagel_studio
from bagel_studio.core.resources import RESOURCES
package = Path(bagel_studio.__file__).parent
assert RESOURCES == package / "resources", (RESOURCES, package)
print(f"build: the wheel runs from {package}")
PY
  # The demo, built and opened on an offscreen desk by the installed package alone.
  mkdir -p config && printf 'curator = "build"\n' >config/preferences.toml
  QT_QPA_PLATFORM=offscreen BAGEL_STUDIO_SCREENSHOT="$PWD/desk.png" BAGEL_STUDIO_WINDOW_SIZE=1280x800 \
    timeout 300 "$here/$venv/bin/bagel-studio" demo >desk.log 2>&1 || { cat desk.log >&2; exit 1; }
  "$here/$venv/bin/python" "$here/packaging/smoke_check.py" nonblank desk.png 1280 800
)

echo "== the bundle (PyInstaller)"
rm -rf dist/bagel-studio "$bundle_tar"
"$python" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
  packaging/bagel-studio.spec
app=dist/bagel-studio
# Desktop integration, in the layout of a prefix's share/ folder.
install -D -m 644 "resources/desktop/io.github.bagelstudio.BagelStudio.desktop" \
  "$app/share/applications/io.github.bagelstudio.BagelStudio.desktop"
install -D -m 644 "resources/desktop/io.github.bagelstudio.BagelStudio.metainfo.xml" \
  "$app/share/metainfo/io.github.bagelstudio.BagelStudio.metainfo.xml"
install -D -m 644 "resources/desktop/io.github.bagelstudio.BagelStudio.mime.xml" \
  "$app/share/mime/packages/io.github.bagelstudio.BagelStudio.xml"
install -D -m 644 "resources/desktop/io.github.bagelstudio.BagelStudio.png" \
  "$app/share/icons/hicolor/256x256/apps/io.github.bagelstudio.BagelStudio.png"
install -D -m 644 "resources/desktop/io.github.bagelstudio.BagelStudio.svg" \
  "$app/share/icons/hicolor/scalable/apps/io.github.bagelstudio.BagelStudio.svg"
install -m 755 packaging/install-desktop-entry.sh "$app/install-desktop-entry.sh"
install -m 644 LICENSE "$app/LICENSE"
bash packaging/source-hash.sh >"$app/BUILT-FROM"
tar -czf "$bundle_tar" -C dist bagel-studio
ls -l "$bundle_tar"

echo "== smoke test of the bundle, against the wheel"
env -u PYTHONPATH bash packaging/smoke.sh "$bundle_tar" "$venv/bin/bagel-studio"
