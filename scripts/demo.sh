#!/usr/bin/env bash
# Quick start, command 1: set up and run the main job on the embedded defaults — SQLite, the
# offline extractor, no network, no LLM. A scratch project gets the bundled bilingual example
# conversation; the pipeline distils memories; we list them and show each with its provenance.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh cloud  # everything: the base CLI and the cloud control plane
APJ="$PWD/.venv/bin/autopatch-j"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/autopatch-j-demo.XXXXXX")
unset AUTOPATCH_LLM_API_KEY AUTOPATCH_LLM_BASE_URL AUTOPATCH_LLM_MODEL
export AUTOPATCH_MEMORY_EXTRACTOR=rules
echo "== scratch project: $scratch"
cd "$scratch"
echo "== autopatch-j memory ingest examples/conversation.jsonl"
"$APJ" memory ingest "$OLDPWD/examples/conversation.jsonl"
echo "== autopatch-j memory drain"
"$APJ" memory drain
echo "== autopatch-j memory list"
"$APJ" memory list
for id in $("$APJ" memory list --json | "$OLDPWD/.venv/bin/python" -c 'import json,sys; print(" ".join(str(i["id"]) for i in json.load(sys.stdin)))'); do
  echo "== autopatch-j memory show $id"
  "$APJ" memory show "$id"
done
echo "== autopatch-j memory search 'Python'"
"$APJ" memory search "Python"
echo "== autopatch-j memory status"
"$APJ" memory status
