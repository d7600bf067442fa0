#!/usr/bin/env bash
# Checks a `regwatt report` directory's index.html in a real browser and takes a
# screenshot of it.
#
#   scripts/check-report-html.sh REPORT_DIR [SCREENSHOT.png] [WIDTHxHEIGHT]
#
# Static checks: index.html exists, loads nothing from outside (no http(s) source), and every
# local link in it names a file or folder of the report. Then headless Chromium (Debian's
# `chromium` package: apt-get install chromium) loads the page: the DOM it builds must hold
# every chart of studies/*.svg as an inline <svg>, the headline and seed-versus-regwatt
# tables, and the screenshot (default REPORT_DIR/index.png, 1500x4000) must be written.
set -euo pipefail
dir=${1:?usage: scripts/check-report-html.sh REPORT_DIR [SCREENSHOT.png] [WIDTHxHEIGHT]}
png=${2:-$dir/index.png}
size=${3:-1500x4000}
html=$dir/index.html
fail() { echo "check-report-html: $*" >&2; exit 1; }
[ -s "$html" ] || fail "$html: missing or empty"

if grep -Eq '(src|href)="(https?:)?//' "$html"; then
    fail "$html loads or links something outside the report"
fi
links=0
while IFS= read -r link; do
    [ -e "$dir/$link" ] || fail "$html links $link, which the report does not have"
    links=$((links + 1))
done < <(grep -o 'href="[^"#][^"]*"' "$html" | sed 's/^href="//; s/"$//' | sort -u)
[ "$links" -gt 0 ] || fail "$html links no file"

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || fail "no Chromium on PATH (apt-get install chromium)"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile")
url="file://$(realpath "$html")"

dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" 2>/dev/null) \
    || fail "chromium could not load $url"
charts=$(find "$dir/studies" -name '*.svg' | wc -l)
svgs=$(grep -o '<svg' <<<"$dom" | wc -l)
[ "$charts" -gt 0 ] || fail "$dir/studies has no chart"
[ "$svgs" -ge "$charts" ] || fail "the page shows $svgs inline charts of $charts"
grep -q 'id="headline"' <<<"$dom" || fail "no headline table in the page"
grep -q 'id="seed"' <<<"$dom" || fail "no seed-versus-regwatt section in the page"
tables=$(grep -o '<table' <<<"$dom" | wc -l)

rm -f "$png"
timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size="${size/x/,}" \
    --screenshot="$(realpath -m "$png")" "$url" >/dev/null 2>&1 || true
[ -s "$png" ] || fail "chromium wrote no screenshot $png"
echo "check-report-html: ok: $links links, $svgs charts ($charts files), $tables tables; screenshot $png"
