#!/usr/bin/env bash
# Prints one hash of the sources a bundle is built from (the package, its resources, the build
# configuration), as they are in the work tree. build.sh stores it in the bundle; the README's test
# command compares it to tell a bundle of the current sources from a stale one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files -z -- bagel_studio resources setup.py pyproject.toml packaging/bagel-studio.spec \
  packaging/bundle_entry.py packaging/pyi_rth_bagel.py packaging/install-desktop-entry.sh \
  | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
