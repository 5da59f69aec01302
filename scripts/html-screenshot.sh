#!/usr/bin/env bash
# Render an HTML report in headless Chromium and save a PNG screenshot of it.
#
#   scripts/html-screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]    # default 1280,2000
#
# Exit codes: 0 the PNG was written; 1 Chromium ran but wrote no PNG; 2 bad usage;
# 127 no Chromium found (Debian: apt-get install chromium). `$CHROMIUM` overrides the
# browser binary. Runs as root too (--no-sandbox), with a throwaway profile directory so
# parallel runs do not share state.
set -euo pipefail

usage() { echo "usage: $0 REPORT.html OUT.png [WIDTH,HEIGHT]" >&2; exit 2; }
[[ $# -ge 2 && $# -le 3 ]] || usage
html=$1 out=$2 size=${3:-1280,2000}
[[ -f $html ]] || { echo "html-screenshot: no such file: $html" >&2; exit 2; }
[[ $size =~ ^[0-9]+,[0-9]+$ ]] || usage

browser=${CHROMIUM:-}
if [[ -z $browser ]]; then
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
    done
fi
if [[ -z $browser ]] || ! command -v "$browser" >/dev/null 2>&1; then
    echo "html-screenshot: chromium not found (Debian: apt-get install chromium)" >&2
    exit 127
fi

abs_html=$(cd "$(dirname "$html")" && pwd -P)/$(basename "$html")
mkdir -p "$(dirname "$out")"
abs_out=$(cd "$(dirname "$out")" && pwd -P)/$(basename "$out")
profile=$(mktemp -d "${TMPDIR:-/tmp}/html-screenshot.XXXXXX")
trap 'rm -rf "$profile"' EXIT
rm -f "$abs_out"

# --virtual-time-budget lets the page's script run before the shot; the log goes to
# stderr only when the shot fails (Chromium is chatty about D-Bus in containers).
log=$profile/chromium.log
if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --hide-scrollbars --no-first-run --no-default-browser-check --mute-audio \
    --user-data-dir="$profile/user" --virtual-time-budget=2000 \
    --window-size="$size" --screenshot="$abs_out" "file://$abs_html" >"$log" 2>&1; then
    cat "$log" >&2
    echo "html-screenshot: $browser failed" >&2
    exit 1
fi
if [[ ! -s $abs_out ]]; then
    cat "$log" >&2
    echo "html-screenshot: no screenshot written to $abs_out" >&2
    exit 1
fi
echo "$abs_out"
