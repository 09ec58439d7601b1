#!/usr/bin/env bash
# Runs faults.yaml into a fresh database and prints, per variant, the runs
# and how many got each flag.
#
#   bench/faults/run.sh [DB]      # default /tmp/latlab-faults.db
#
# latlab comes from $LATLAB, else PATH. Needs python3 and stress-ng.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
db=${1:-/tmp/latlab-faults.db}
latlab=${LATLAB:-$(command -v latlab)}
export PATH=$(dirname "$latlab"):$PATH
rm -f "$db" "$db"-*
"$latlab" run "$here/faults.yaml" -o "$db" >&2
sqlite3 -header -column "$db" "
  SELECT variant, COUNT(*) AS runs,
    SUM(flags = '[]') AS clean,
    SUM(flags LIKE '%\"trend\"%') AS trend,
    SUM(flags LIKE '%\"target_cpu_high\"%') AS cpu_high,
    SUM(flags LIKE '%\"errors\"%') AS errors,
    SUM(flags LIKE '%\"generator_saturated\"%') AS saturated,
    SUM(flags LIKE '%\"inconsistent\"%') AS inconsistent
  FROM runs GROUP BY variant ORDER BY MIN(id)"
