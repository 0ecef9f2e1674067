# Sourced by build.sh and bundle_test.sh: the allowlist of libraries a Linux bundle may take from
# the system (system-libraries.txt; tests/test_bundle.py reads the same file), and the checks
# against it.

system_libraries_file=$(dirname "${BASH_SOURCE[0]}")/system-libraries.txt

# The allowlist's patterns, one a line: the first word of each line, comments and blanks left out.
system_library_patterns() {
  sed -e 's/#.*//' "$system_libraries_file" | awk 'NF { print $1 }'
}

# Reads library paths or names on stdin; prints those whose file name no pattern matches.
not_on_allowlist() {
  local -a patterns
  mapfile -t patterns < <(system_library_patterns)
  local path name pattern
  while read -r path; do
    [[ -n $path ]] || continue
    name=${path##*/}
    for pattern in "${patterns[@]}"; do
      # shellcheck disable=SC2053 # the pattern is a glob on purpose
      [[ $name == $pattern ]] && continue 2
    done
    echo "$path"
  done
  return 0
}

# loaded_outside BUNDLE LOGS: the libraries the dynamic loader initialised (LD_DEBUG=files logs
# in the folder LOGS, one file per process) from outside the folder BUNDLE, one path a line.
loaded_outside() {
  local inside path
  inside=$(realpath "$1")
  grep -ho 'calling init: .*' "$2"/* 2>/dev/null | sed 's/^calling init: //' | sort -u |
    while read -r path; do
      [[ $(realpath -m "$path") == "$inside"/* ]] || echo "$path"
    done
}

# needed_from_system BUNDLE: the libraries files in the folder BUNDLE name as dependencies
# (DT_NEEDED) and the bundle does not hold, one a line.
needed_from_system() {
  local held
  held=$(find "$1" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)
  # objdump says no to the files that are not libraries or programs (the install scripts).
  { find "$1" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    xargs -0 objdump -p 2>/dev/null || true; } | awk '$1 == "NEEDED" { print $2 }' | sort -u |
    comm -23 - <(echo "$held")
}
