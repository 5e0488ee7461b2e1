#!/usr/bin/env bash
# Run a command on a virtual X screen (Xvfb) of its own, for the demo on a machine without a display:
#   bash packaging/virtual-screen.sh WIDTHxHEIGHTxDEPTH COMMAND [ARGS...]
# The screen runs in a session of its own, so Ctrl+C in the terminal reaches the command only: the
# desk quits first, saving what it must, and the screen is ended once it has. (Under xvfb-run the
# screen got the same Ctrl+C and died under the desk, which then printed an X11 error.)
# Exits with the command's status.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: bash packaging/virtual-screen.sh WIDTHxHEIGHTxDEPTH COMMAND [ARGS...]" >&2
  exit 2
fi
geometry="$1"
shift
for tool in Xvfb xauth mcookie setsid; do
  if ! command -v "$tool" >/dev/null; then
    echo "bagel: $tool is missing (Debian packages xvfb, xauth, util-linux); bash packaging/setup.sh installs them" >&2
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/bagel-screen.XXXXXX")"
xvfb=""
end_screen() {
  if [ -n "$xvfb" ]; then
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap end_screen EXIT

# Only who holds the cookie may use the screen (as with xvfb-run). The server accepts every
# cookie of its file; the client looks its display's up, added once the server has said which.
cookie="$(mcookie)"
: >"$work/auth"
xauth -q -f "$work/auth" add :0 . "$cookie"
setsid Xvfb -displayfd 3 -screen 0 "$geometry" -nolisten tcp -auth "$work/auth" \
  3>"$work/display" >"$work/xvfb.log" 2>&1 </dev/null &
xvfb=$!
for _ in $(seq 200); do  # -displayfd: the number is written once the screen takes clients
  [ -s "$work/display" ] && break
  if ! kill -0 "$xvfb" 2>/dev/null; then
    echo "bagel: the virtual screen (Xvfb) did not start:" >&2
    cat "$work/xvfb.log" >&2
    xvfb=""
    exit 1
  fi
  sleep 0.05
done
if [ ! -s "$work/display" ]; then
  echo "bagel: the virtual screen (Xvfb) did not start within 10 s" >&2
  exit 1
fi
display=":$(head -n 1 "$work/display")"
xauth -q -f "$work/auth" add "$display" . "$cookie"

# Ctrl+C goes to the command, which quits by itself; this script waits for it, then ends the
# screen (a trap, not an ignored signal: the command must still receive it).
trap ':' INT
status=0
DISPLAY="$display" XAUTHORITY="$work/auth" "$@" || status=$?
exit "$status"
