#!/usr/bin/env bash
# make bundle-test: the built bundle, as a person's computer would run it: a real X server (Xvfb)
# and Qt's xcb platform plugin, as on a desktop (not the offscreen plugin, which needs none of
# the display libraries), a fresh home, no Python on the PATH, and no network at all (a network
# namespace of its own, where unshare is allowed). Its window's self-test must reply, the real
# window is photographed on the X server, every native library the processes load must be inside
# the bundle or on the allowlist of libraries every desktop has (system-libraries.txt), `cove
# chat` must reply, and the cold start to the first painted window is reported (five runs).
# What it leaves (screenshots, the self-test's report, the loader's logs) is in build/bundle-test.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:-$root/dist/cove}" 2>/dev/null && pwd) || bundle=${1:-$root/dist/cove}
[[ -x $bundle/cove ]] || { echo "bundle-test: no bundle at $bundle (run make bundle)" >&2; exit 1; }
out=${COVE_BUNDLE_TEST_OUT:-$root/build/bundle-test}
rm -rf "$out"
mkdir -p "$out/loader"
# shellcheck source=packaging/linux/system_libraries.sh
source "$root/packaging/linux/system_libraries.sh"

# The tools this test needs to stand in for a desktop: an X server with no screen, and
# ImageMagick's `import` to photograph the window on it.
missing=()
command -v Xvfb >/dev/null || missing+=(xvfb)
command -v import >/dev/null || missing+=(imagemagick)
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    echo "bundle-test: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "bundle-test: needs ${missing[*]} (Debian/Ubuntu: sudo apt install ${missing[*]};" \
      "Fedora: sudo dnf install xorg-x11-server-Xvfb ImageMagick)" >&2
    exit 1
  fi
fi

tmp=$(mktemp -d)
home=$tmp/home
bin=$tmp/bin
mkdir -p "$home" "$bin"
xvfb_pid=
cleanup() {
  [[ -z $xvfb_pid ]] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The X server. -displayfd: it writes its display number once it accepts clients, so the read
# below returns exactly when it is ready (or empty, if it failed to start).
mkfifo "$tmp/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$tmp/display" 2>"$out/xvfb.log" &
xvfb_pid=$!
read -r display <"$tmp/display" || true
[[ -n $display ]] || { cat "$out/xvfb.log" >&2; echo "bundle-test: Xvfb did not start" >&2; exit 1; }
echo "display: Xvfb :$display, QT_QPA_PLATFORM=xcb"

# The PATH a desktop session gives, less any Python.
for tool in sh env uname; do
  ln -s "$(command -v $tool)" "$bin/$tool"
done
# No network: a network namespace of its own, with only loopback up (Cove's window talks to its
# engine host on 127.0.0.1). The X server is reached through its socket in /tmp/.X11-unix, a
# file, which a network namespace does not hide.
isolated=()
ip=$(command -v ip || true)
if [[ -n $ip ]] && unshare -rn "$ip" link set lo up 2>/dev/null; then
  isolated=("$(command -v unshare)" -rn sh -c "$ip link set lo up && exec \"\$@\"" sh)
  echo "network: none but loopback (a network namespace of its own)"
else
  echo "network: no network namespace here; running with the machine's network" >&2
fi
desktop_env=(env -i HOME="$home" PATH="$bin" QT_QPA_PLATFORM=xcb DISPLAY=":$display" LANG=C.UTF-8)
run() {
  "${isolated[@]}" "${desktop_env[@]}" "$bundle/cove" "$@"
}
if PATH="$bin" command -v python3 >/dev/null || PATH="$bin" command -v python >/dev/null; then
  echo "bundle-test: Python is on the test PATH" >&2; exit 1
fi
touch "$tmp/started"

echo "== self-test in a real X window"
# The dynamic loader logs every library it initialises, in the window's process and in the
# engine host it starts (one file each), including those opened late (Qt's plugins).
loader=(LD_DEBUG=files LD_DEBUG_OUTPUT="$out/loader/gui")
# The self-test saves its screenshot once the reply is painted, just before the window closes.
# Its screenshot file is a pipe: the window waits in opening it until this script opens the
# other end, and this script holds the window there (SIGSTOP) while it photographs it on the X
# server, so the picture is the real window with the reply, not a guess at when it is up.
mkfifo "$tmp/grab.png"
(exec "${isolated[@]}" "${desktop_env[@]}" "${loader[@]}" "$bundle/cove" \
  --self-test --timeout 300 --screenshot "$tmp/grab.png" >"$out/self-test.json") &
window_pid=$!
# Should the window end without opening the pipe (Qt could not start), open it here, saying
# so, and the read below ends too.
{ tail --pid="$window_pid" -f /dev/null; touch "$tmp/window-gone"; exec 3<>"$tmp/grab.png"; } &
watchdog_pid=$!
exec {grab}<"$tmp/grab.png"
kill -STOP "$window_pid" 2>/dev/null || true
if [[ ! -e $tmp/window-gone ]]; then
  # `timeout`: import asks for a mouse click when it finds no such window; here none comes.
  timeout 120 import -display ":$display" -window Cove "$out/window-xcb.png" \
    2>"$out/import.log" || true
fi
kill -CONT "$window_pid" 2>/dev/null || true
cat <&"$grab" >"$out/window-grab.png"
exec {grab}<&-
status=0
wait "$window_pid" || status=$?
wait "$watchdog_pid"
cat "$out/self-test.json"

echo "== libraries loaded from outside the bundle"
outside=$(loaded_outside "$bundle" "$out/loader")
echo "${outside:-none}" | sed 's/^/  /'
unlisted=$(not_on_allowlist <<<"$outside")
failed=0
if [[ -n $unlisted ]]; then
  echo "bundle-test: loaded from the system, but neither inside the bundle nor on" \
    "packaging/linux/system-libraries.txt:" >&2
  sed 's/^/  /' <<<"$unlisted" >&2
  failed=1
fi
if ((status != 0)) || ! grep -q '"ok": true' "$out/self-test.json"; then
  echo "bundle-test: the window's self-test failed (exit $status)" >&2
  failed=1
fi
((failed == 0)) || exit 1
if [[ ! -s $out/window-xcb.png ]]; then
  cat "$out/import.log" >&2; echo "bundle-test: no screenshot of the window" >&2; exit 1
fi
echo "screenshot of the real window: $out/window-xcb.png"

echo "== cove chat"
# A system prompt, as every chat in the window has: without one a 135M model's greedy answer
# depends on the CPU's SIMD paths, with one it names Paris on every CPU tried. Only a reply is
# required: its wording is the model's, not the bundle's.
answer=$(run chat "What is the capital of France?" --system "You are a helpful assistant." \
  --temperature 0)
echo "$answer"
[[ -n ${answer//[[:space:]]/} ]] || { echo "bundle-test: cove chat gave no reply" >&2; exit 1; }
grep -qi paris <<<"$answer" || echo "bundle-test: note: the reply does not name Paris" >&2

echo "== cold start to first paint (5 runs)"
for _ in 1 2 3 4 5; do
  run --exit-after-paint
done | tee "$out/paint.jsonl"

echo "== the bundle wrote nothing inside itself"
if find "$bundle" -newer "$tmp/started" | grep -q .; then
  find "$bundle" -newer "$tmp/started" >&2
  echo "bundle-test: files were written inside the bundle" >&2; exit 1
fi
echo "bundle-test: passed"
