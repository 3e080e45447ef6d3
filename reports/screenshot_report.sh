#!/usr/bin/env bash
# Renders a report's index.html with headless Chromium (Debian's `chromium`) into PNG slices,
# so the page can be looked at as a browser shows it: reports/screenshot_report.sh DIR [WIDTH]
# writes DIR/screenshot.png (the whole page, up to 20000 px tall). Exit 5 without chromium.
set -euo pipefail
dir=${1:?usage: screenshot_report.sh REPORT_DIR [WIDTH]}
width=${2:-1400}
command -v chromium >/dev/null || { echo "error: chromium not found
  hint: apt-get install chromium" >&2; exit 5; }
[ -f "$dir/index.html" ] || { echo "error: no $dir/index.html
  hint: tandem report RECORDS -o $dir first" >&2; exit 4; }
page="file://$(cd "$dir" && pwd)/index.html"
timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="$width,20000" --screenshot="$dir/screenshot.png" "$page" >/dev/null 2>&1
# Trim the blank tail below the page's last content row.
python3 - "$dir/screenshot.png" <<'PY'
import sys
import numpy as np
from PIL import Image
path = sys.argv[1]
im = Image.open(path)
rows = np.nonzero((np.asarray(im.convert("L")) < 250).any(axis=1))[0]
im.crop((0, 0, im.width, int(rows.max()) + 20 if rows.size else 100)).save(path)
print(f"{path}: {im.width}x{int(rows.max()) + 20 if rows.size else 100}")
PY
