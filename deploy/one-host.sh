#!/usr/bin/env bash
# One campaign on one host as N processes, then one merged result (GNU parallel or xargs -P; no scheduler of ours).
#
#   deploy/one-host.sh OUT N [run options...]      e.g.  deploy/one-host.sh /srv/txfuzz/seed-42 4 --seed 42 --time 1h
#
# Process i runs `txfuzz run --worker i/N --jobs 1 --out OUT/worker-i [run options...]`: iteration k runs in
# worker k mod N, so no case runs twice, and each case still replays alone from (seed, iteration). Give --seed:
# every worker must use the same one. When all have ended, `txfuzz merge OUT/worker-* --out OUT/all` combines
# them (run it again at any time; it only rewrites OUT/all). With GNU parallel the same line is:
#   parallel -j N txfuzz run --worker {}/N --jobs 1 --out OUT/worker-{} [run options...] ::: $(seq 0 $((N - 1)))
# TXFUZZ names the launcher (default: txfuzz on PATH; e.g. TXFUZZ=~/txfuzz/txfuzz). Each worker's output is in OUT/logs/.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OUT N [run options...]" >&2
  exit 2
fi
out=$1
n=$2
shift 2
txfuzz=${TXFUZZ:-txfuzz}
mkdir -p "$out/logs"
# a checkout's launcher builds its jar when a source changed: once, before N processes start at the same time
"$txfuzz" --version >/dev/null
# a worker's exit code 1 means it found bug candidates: that is a result, not a failure
seq 0 $((n - 1)) | xargs -P "$n" -I{} bash -c 'rc=0; "$@" >"'"$out"'/logs/worker-{}.log" 2>&1 || rc=$?; [ "$rc" -le 1 ] || { echo "worker {} failed ($rc): see '"$out"'/logs/worker-{}.log" >&2; exit 1; }' \
  _ "$txfuzz" run --worker "{}/$n" --jobs 1 --out "$out/worker-{}" "$@"
exec "$txfuzz" merge "$out"/worker-*/ --out "$out/all"
