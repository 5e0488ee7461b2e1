#!/usr/bin/env bash
# Run by the README's test command: the bundle's smoke test, when packaging/build.sh has built a
# bundle of the current sources into dist/ (CI does not build one: see packaging/build.sh). A
# bundle built from other sources is reported and left alone, since its differences from the
# installed package would be those of the sources, not of the packaging.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
python="${1:-.venv/bin/python}"
version="$("$python" -c 'import bagel_studio; print(bagel_studio.__version__)')"
bundle_tar="dist/bagel-studio-$version-linux-x86_64.tar.gz"
if [ ! -f "$bundle_tar" ]; then
  echo "smoke: no bundle in dist/ (bash packaging/build.sh builds one); smoke test not run"
  exit 0
fi
built_from="$(tar -xzOf "$bundle_tar" bagel-studio/BUILT-FROM 2>/dev/null || true)"
if [ "$built_from" != "$(bash packaging/source-hash.sh)" ]; then
  echo "smoke: $bundle_tar was built from other sources; rebuild it (bash packaging/build.sh)"
  echo "smoke: smoke test not run"
  exit 0
fi
exec bash packaging/smoke.sh "$bundle_tar" "$(dirname "$python")/bagel-studio"
