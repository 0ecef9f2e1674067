#!/usr/bin/env bash
# make bundle-test: the built bundle, as a person's computer would run it: a fresh home, no
# Python on the PATH, and no network at all (a network namespace of its own, where unshare is
# allowed). Its window's self-test must reply, `cove chat` must say Paris, and the cold start to
# the first painted window is reported (the median of five).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=${1:-$root/dist/cove}
[[ -x $bundle/cove ]] || { echo "bundle-test: no bundle at $bundle (run make bundle)" >&2; exit 1; }
home=$(mktemp -d)
bin=$(mktemp -d)
trap 'rm -rf "$home" "$bin"' EXIT
# The PATH a desktop session gives, less any Python.
for tool in sh env uname; do
  ln -s "$(command -v $tool)" "$bin/$tool"
done
# No network: a network namespace of its own, with only loopback up (Cove's window talks to its
# engine host on 127.0.0.1).
isolated=()
ip=$(command -v ip || true)
if [[ -n $ip ]] && unshare -rn "$ip" link set lo up 2>/dev/null; then
  isolated=("$(command -v unshare)" -rn sh -c "$ip link set lo up && exec \"\$@\"" sh)
  echo "network: none but loopback (a network namespace of its own)"
else
  echo "network: no network namespace here; running with the machine's network" >&2
fi
run() {
  "${isolated[@]}" env -i HOME="$home" PATH="$bin" QT_QPA_PLATFORM=offscreen LANG=C.UTF-8 \
    "$bundle/cove" "$@"
}
if PATH="$bin" command -v python3 >/dev/null || PATH="$bin" command -v python >/dev/null; then
  echo "bundle-test: Python is on the test PATH" >&2; exit 1
fi
touch "$home/started"
echo "== self-test"
run --self-test --timeout 300 | tee "$home/self-test.json"
echo "== cove chat"
answer=$(run chat "What is the capital of France?" --temperature 0)
echo "$answer"
grep -qi paris <<<"$answer" || { echo "bundle-test: the answer does not name Paris" >&2; exit 1; }
echo "== cold start to first paint (5 runs)"
for _ in 1 2 3 4 5; do
  run --exit-after-paint
done | tee "$home/paint.jsonl"
echo "== the bundle wrote nothing inside itself"
if find "$bundle" -newer "$home/started" | grep -q .; then
  find "$bundle" -newer "$home/started" >&2
  echo "bundle-test: files were written inside the bundle" >&2; exit 1
fi
echo "bundle-test: passed"
