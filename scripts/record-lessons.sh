#!/usr/bin/env bash
# Records the built-in lessons' runs with the offline demo model and builds
# the lesson files the app ships (public/lessons/*.lesson.json) from the
# specs in lessons/*.json. The runs are deterministic: the specs' event
# numbers stay right as long as the demo scripts do not change (the native
# test tests/lessons.rs checks every shipped question against its run).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --bin roundtable
B=target/debug/roundtable
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$B run --coordinator travel --variant orchestrator --quiet --out lessons/travel-orchestrator.run.json
$B run --coordinator travel --variant fixed-notebook --quiet --out lessons/travel-fixed.run.json
$B run --coordinator act --variant act --quiet --out lessons/act.run.json
$B mael-learn --dataset builtin --train 4 --out "$tmp/pool.json" --quiet
$B run --coordinator mael --mode step --pool "$tmp/pool.json" --task-idx 5 --no-learn --quiet --out lessons/mael.run.json
mkdir -p public/lessons
for spec in lessons/*.json; do
  case "$spec" in *.run.json) continue ;; esac
  name=$(basename "$spec" .json)
  $B lesson make "$spec" --out "public/lessons/$name.lesson.json"
done
