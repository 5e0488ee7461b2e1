#!/usr/bin/env bash
# The two entry points of the README:
#   bash packaging/bagel.sh demo   set everything up, then open the desk on the demo project
#   bash packaging/bagel.sh test   set everything up, then run lint, types, import layers and the whole test suite
# Anything after "demo" is passed to bagel-studio; anything after "test" to pytest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-}"
shift || true

bash packaging/setup.sh

case "$mode" in
  demo)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
      echo "bagel: no display found; starting the desk on a virtual screen (Xvfb)."
      echo "bagel: the desk prints how to see it (VNC, screenshots); Ctrl+C quits."
      export BAGEL_STUDIO_HEADLESS=1
      exec bash packaging/virtual-screen.sh 1600x1000x24 .venv/bin/bagel-studio demo "$@"
    fi
    exec .venv/bin/bagel-studio demo "$@"
    ;;
  test)
    echo "== ruff"
    .venv/bin/ruff check bagel_studio tests
    .venv/bin/ruff format --check bagel_studio tests
    echo "== mypy"
    .venv/bin/mypy
    echo "== import layers"
    .venv/bin/lint-imports
    echo "== pytest"
    status=0
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -p no:cacheprovider "$@" || status=$?
    if [ "$status" -eq 5 ]; then
      echo "bagel: pytest collected no tests; that is a failure" >&2
      exit 1
    fi
    if [ "$status" -eq 0 ] && [ "$#" -eq 0 ]; then
      echo "== bundle smoke test"
      bash packaging/smoke-if-built.sh || status=$?
    fi
    exit "$status"
    ;;
  *)
    echo "usage: bash packaging/bagel.sh demo|test [args...]" >&2
    exit 2
    ;;
esac
