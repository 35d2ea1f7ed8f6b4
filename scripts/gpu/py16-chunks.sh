#!/usr/bin/env bash
# py16 (pinned memory, a stream per chunk) on a GPU with real numba-cuda, at several sizes: how
# much copy time the GPU hides when Numba's host work per call (0.1-0.7 ms) is set against each
# chunk's copies and kernel. Each configuration runs py16-chunks.py through the course's driver
# in pass-through mode (`runner run --backend gpu --json`); py16-chunks-table.py reads the
# records into $OUT/py16-chunks.md. Carry as python-env.sh says. SIZES overrides the list.
source "$(dirname "$0")/python-env.sh"
here=$(dirname "$0")
: "${SIZES:=8388608:8:8 16777216:8:8 33554432:8:8 16777216:4:8 33554432:4:8 8388608:8:32 16777216:8:32}"
mkdir -p "$OUT/records"
for size in $SIZES; do
    IFS=: read -r n chunks rounds <<<"$size"
    for views in slice premade; do
        for try in 1 2; do
            name="$n-$chunks-$rounds-$views-$try"
            timeout 120 $R run --backend gpu --json -- python3 "$here/py16-chunks.py" "$n" "$chunks" "$rounds" "$views" \
                >"$OUT/records/$name.json" 2>"$OUT/records/$name.err"
        done
    done
done
python3 "$here/py16-chunks-table.py" "$OUT/records" | tee "$OUT/py16-chunks.md"
tar -czf "$OUT/py16-records.tar.gz" -C "$OUT" records && rm -rf "$OUT/records"
