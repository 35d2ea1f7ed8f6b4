#!/usr/bin/env bash
# Nsight Systems on the streams program (book/src/profiling.md), with the nsys that Nsight Compute
# ships where no Nsight Systems is installed. Run from the course root; results in $OUT.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=$PWD/scripts/gpu/book
W=$(mktemp -d)
NSYS=$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
# That copy records a .qdstrm but cannot import it itself; the importer, where there is one, can.
IMPORTER=$(find / -xdev -name 'QdstrmImporter*' -type f 2>/dev/null | head -1)
# It needs elfutils' libdw.so.1; a machine without it can be given one in $NSYS_LIBS (a folder).
import() {
    [ -f "$1.nsys-rep" ] || { [ -n "$IMPORTER" ] &&
        LD_LIBRARY_PATH=${NSYS_LIBS:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 120 "$IMPORTER" -i "$1.qdstrm"; }
}
nvcc -O3 -arch=sm_90 -I$B -o "$W/streams_graphs" $B/streams_graphs.cu
cd "$W"
{
    echo "=== $NSYS --version"; "$NSYS" --version
    echo "=== nsys profile --stats=true -o streams ./streams_graphs"
    echo "importer: ${IMPORTER:-none}"
    timeout 240 "$NSYS" profile --stats=true --force-overwrite true -o streams ./streams_graphs
    echo "=== exit $?"
    import streams && timeout 120 "$NSYS" stats streams.nsys-rep
    echo "=== nsys profile -o chunks ./streams_graphs chunks; nsys stats --report cuda_gpu_trace"
    timeout 120 "$NSYS" profile --force-overwrite true -o chunks ./streams_graphs chunks
    import chunks
    timeout 120 "$NSYS" stats --report cuda_gpu_trace chunks.nsys-rep
    echo "=== exit $?"
} > "$OUT/nsys-streams.txt" 2>&1
ls -la "$W" >> "$OUT/nsys-streams.txt"
echo done
