#!/usr/bin/env bash
# temporary experiment driver (not committed)
set -uo pipefail
t0=$(date +%s)
tar -C build -xzf build/carry.tgz
S=build/carry/swath
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for v in 01 02 03 04 05 06 07 08; do
  timeout 75 $S bench stencil --device cuda --reps 3 --quiet --cached-ceilings -s 2048x1100x1000 -p radius=1 -p type=float -v "*cuda/$v*" --json $OUT/large-float-$v.json > /tmp/large-float-$v.txt 2>&1; rc=$?
  echo "$v rc $rc $(( $(date +%s) - t0 ))s $(awk '/cuda\/0/{print $7,$8,$9,$11,$14}' /tmp/large-float-$v.txt)"
  [ $rc != 0 ] && tail -3 /tmp/large-float-$v.txt | cut -c1-200
  [ $(( $(date +%s) - t0 )) -gt 420 ] && break
done
