# Sourced by scripts/fetch-native-deps.sh and scripts/image-test.sh, so no
# mirror host is ever written in the project: it is read from apt's own
# configuration.

# The machine's Debian mirror: the first apt source that serves bookworm from
# the main archive (not the security one). deb822 (.sources) and one-line
# (.list) formats are both read.
find_mirror() {
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 1
  awk '
    function emit(uri) { if (uri !~ /security/) { print uri; found = 1; exit } }
    /^[[:space:]]*deb[[:space:]]/ {
      for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { uri = $i; suite = $(i + 1); break }
      if (suite ~ /^bookworm$/) emit(uri)
    }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && uris != "") emit(uris) }
    /^[[:space:]]*$/ { uris = "" }
  ' "${files[@]}"
}
