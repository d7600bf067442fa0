#!/usr/bin/env bash
# Screenshots of the `regwatt report` page for docs/: docs/report-1280.png and
# docs/report-1920.png, index.html in headless Chromium windows 1,280 and 1,920 pixels wide.
#
#   scripts/report_screenshots.sh [REPORT_DIR]
#
# From the repository's root it builds regwatt and runs
#
#   target/release/regwatt report --size ci --out REPORT_DIR
#
# (REPORT_DIR default target/report-screenshots: every design, both presets, all 45 workloads,
# 40 and 12 nm, always on), then loads REPORT_DIR/index.html in Chromium (Debian's `chromium`:
# apt-get install chromium). The whole page is too tall for one small PNG, so each screenshot
# is a column of windows onto the page, each as wide as the screenshot, one under the other:
# the page's top (headline and assumptions) and each study's section from its heading (the
# page opened at `#energy`, `#energy_area`, `#node_scaling`, `#area_budget`); at 1,280 px,
# where the dynamic-energy chart is under the total's, also the top of the dynamic chart
# (`#chart-energy_dynamic_gtx480_40nm`).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/report-screenshots}

cargo build --release
target/release/regwatt report --size ci --out "$dir" >/dev/null

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "report_screenshots: no Chromium on PATH (apt-get install chromium)" >&2; exit 1; }
profile=$(mktemp -d)
montage=$(mktemp --suffix=.html)
trap 'rm -rf "$profile" "$montage"' EXIT
page="file://$(realpath "$dir/index.html")"

# WIDTH, then (fragment, height) pairs: the windows of the screenshot, top to bottom
shoot() {
    local width=$1 png=$2
    shift 2
    local total=0 frames=""
    while [ $# -gt 0 ]; do
        frames+="<iframe src=\"$page$1\" style=\"display:block;border:0;border-bottom:3px solid #888;width:${width}px;height:${2}px\"></iframe>"
        total=$((total + $2 + 3))
        shift 2
    done
    printf '<!DOCTYPE html><html><body style="margin:0">%s</body></html>\n' "$frames" >"$montage"
    rm -f "$png"
    timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --allow-file-access-from-files --hide-scrollbars \
        --window-size="$width,$total" --screenshot="$(realpath -m "$png")" \
        "file://$montage" >/dev/null 2>&1 || true
    [ -s "$png" ] || { echo "report_screenshots: chromium wrote no $png" >&2; exit 1; }
    echo "$png: ${width}x$total"
}

shoot 1280 docs/report-1280.png "" 1150 "#energy" 2000 "#chart-energy_dynamic_gtx480_40nm" 760 \
    "#energy_area" 640 "#node_scaling" 1000 "#area_budget" 1150
shoot 1920 docs/report-1920.png "" 1000 "#energy" 2000 "#energy_area" 640 "#node_scaling" 1000 \
    "#area_budget" 1150
