"""The offline path imports no LLM module.

The offline extractor and the memory contracts it answers with live in `memory/`; importing them —
and running one extraction — in a fresh interpreter leaves `autopatch_j.llm` unloaded. Checked in a
subprocess, through `sys.modules`, so an import added anywhere along the path fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.contracts import ExtractionOutput
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.records import Intent, Turn, TurnStatus
turn = Turn(id=1, thread_id=1, seq=1, intent=Intent.GENERAL_CHAT, status=TurnStatus.COMPLETED,
            user_text="From now on, always answer me in English.", assistant_text="OK.", error=None,
            created_at=0.0, updated_at=0.0)
request = ExtractionRequest(thread_id=1, compaction="", turns=(turn,), prior_turn=None, job_for_turn={1: 1})
out = RulesExtractor().extract(request)
assert isinstance(out, ExtractionOutput)
print(json.dumps({"kinds": [c.kind for c in out.candidates],
                  "llm": sorted(m for m in sys.modules if m.startswith("autopatch_j.llm"))}))
"""


def test_the_offline_extractor_imports_no_llm_module() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kinds"] == ["user_preference"]  # the probe really extracted
    assert report["llm"] == []
