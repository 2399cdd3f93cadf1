#!/usr/bin/env bash
# The main job (`make run`): measures this machine. Each later stage appends here.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=build/teebench
echo "teebench main job on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
