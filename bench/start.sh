#!/usr/bin/env bash
# npm run bench:start -- measures seconds from `npm start` until /api/health answers 200:
# three cold starts (no build, no data: first start on a fresh clone) and three warm starts.
# Uses PORT=3055 and this checkout's .next/ and .envforge/ (the cold runs delete them).
set -u
cd "$(dirname "$0")/.."
run() {
  [ "$1" = cold ] && rm -rf .next .envforge
  local start end pid
  start=$(date +%s.%N)
  PORT=3055 npm start > /tmp/envforge-bench-start.log 2>&1 &
  pid=$!
  until curl -sf http://127.0.0.1:3055/api/health > /dev/null 2>&1; do sleep 0.2; done
  end=$(date +%s.%N)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null; sleep 3
  echo "$end - $start" | bc
}
median() { sort -n | sed -n 2p; }
cold=$(for i in 1 2 3; do run cold; done | median)
warm=$(for i in 1 2 3; do run warm; done | median)
echo "first start (build + new database + demo seed): ${cold}s median of 3"
echo "warm start: ${warm}s median of 3"
