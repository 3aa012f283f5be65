"""A user's private memories are withheld from results and project memories in any spelling.

Through the worker and HTTP: an agent that echoes its instruction as JSON writing `/` as `\\/`, as
JSON encoded twice, URL-encoded, as HTML entities, wrapped at 40 columns (also inside words and
with quote markers), with tabs or no-break spaces, upper-cased, full-width. Then a property test
(Hypothesis, fixed seed) over the pure function: 0 leaks in 10,000 generated echoes.
"""

from __future__ import annotations

import html
import json
import random
import re
import textwrap
import unicodedata
import urllib.parse
from collections.abc import Callable

import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
from autopatch_j.cloud.injection import Injection, withhold
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.tables import tasks
from autopatch_j.cloud.withholding import SHINGLE, withhold_lines
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import LONG_RESULT, World

PRIVATE = 'My home/office "salary" band is 42k, reviewed by Dana every March — 私密笔记不要外传'


def _hard_wrap(text: str, width: int, joint: str) -> str:
    return joint.join(text[i : i + width] for i in range(0, len(text), width))


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


ENCODINGS: dict[str, Callable[[str], str]] = {
    "json_slash": lambda t: json.dumps(t).replace("/", "\\/"),
    "json_twice": lambda t: json.dumps(json.dumps(t)),
    "json_twice_ascii": lambda t: json.dumps(json.dumps(t, ensure_ascii=False)),
    "url": urllib.parse.quote,
    "url_plus": urllib.parse.quote_plus,
    "html_entities": lambda t: html.escape(t).encode("ascii", "xmlcharrefreplace").decode(),
    "wrapped_40": lambda t: "\n".join(textwrap.wrap(t, 40)),
    "hard_wrapped_40_quoted": lambda t: _hard_wrap(t, 40, "\n> "),
    "tabs": lambda t: t.replace(" ", "\t"),
    "nbsp": lambda t: t.replace(" ", "\u00a0"),
    "upper": str.upper,
    "full_width": _full_width,
    "json_wrapped": lambda t: json.dumps("\n".join(textwrap.wrap(t, 40))),
}


class Echoes:
    """An agent that repeats its instruction in every spelling above."""

    name = "echoes"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        text = request.instruction
        lines = [f"{name}: {encode(text)}" for name, encode in ENCODINGS.items()]
        return ExecutionResult(ok=True, text="\n".join(lines) + "\n" + LONG_RESULT, cost_usd=0.01)


def folded(text: str) -> str:
    """The test's own decoding of every spelling above (independent of the module under test)."""
    for _ in range(4):
        text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = text.replace("\\/", "/").replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        text = html.unescape(urllib.parse.unquote_plus(text))
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(c for c in text if c.isalnum())


def leaked(shown: str, private: str) -> list[str]:
    """Pieces of the private line (SHINGLE letters or digits long) still readable in `shown`."""
    view, key = folded(shown), folded(private)
    return sorted({key[i : i + SHINGLE] for i in range(len(key) - SHINGLE + 1) if key[i : i + SHINGLE] in view})


def test_private_memories_are_withheld_whatever_the_agent_echoes(world: World) -> None:
    owner, member, viewer = world.user("owner"), world.user("member"), world.user("viewer")
    project = world.project(owner)
    world.member(project, owner, member, Role.MEMBER)
    world.member(project, owner, viewer, Role.VIEWER)
    with TestClient(make_app(world)) as client:
        api = Api(client, owner.token)
        settings_in = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        assert api("PUT", "/users/me/auto-memory-settings", settings_in).status_code == 200
        assert api("POST", "/users/me/memories", {"content": PRIVATE}).status_code == 201
        task = api("POST", f"/projects/{project.id}/tasks", {"prompt": "Fix the parser"}).json()
        Worker(engine=world.engine, executor=Echoes(), clock=world.clock).run_loop(once=True)
        assert api("POST", "/users/me/auto-memory/run", {"force": True}).status_code == 200
        for actor in (member, viewer):
            seen = Api(client, actor.token)
            detail = seen("GET", f"/tasks/{task['id']}").json()
            assert detail["status"] == "completed" and "json_slash:" in detail["result_text"]
            for path in (f"/tasks/{task['id']}", f"/tasks/{task['id']}/rounds", f"/projects/{project.id}/memories"):
                assert leaked(seen("GET", path).text, PRIVATE) == [], path
            assert "memory line" not in detail["result_text"]  # no count of the owner's private lines
        memories = api("GET", f"/projects/{project.id}/memories").json()
        assert [m for m in memories if "Fix the parser" in m["content"]], memories  # the sweep did run


def test_the_sweep_never_promotes_a_private_span_into_a_project_memory(world: World) -> None:
    """A result stored with an echo the worker did not withhold (as earlier versions stored them)
    still never reaches a project memory: the sweep withholds the run's private memories again."""
    owner = world.user("owner")
    project = world.project(owner)
    with TestClient(make_app(world)) as client:
        api = Api(client, owner.token)
        settings_in = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        assert api("PUT", "/users/me/auto-memory-settings", settings_in).status_code == 200
        assert api("POST", "/users/me/memories", {"content": PRIVATE}).status_code == 201
        task = api("POST", f"/projects/{project.id}/tasks", {"prompt": "Tidy the docs"}).json()
        assert Worker(engine=world.engine, executor=Echoes(), clock=world.clock).run_one() is not None  # no sweep
        with world.engine.begin() as conn:  # the stored result holds the echo after all
            echo = "\n".join(textwrap.wrap(json.dumps(PRIVATE).replace("/", "\\/"), 30))
            conn.execute(sa.update(tasks).where(tasks.c.id == task["id"]).values(result_text=echo + LONG_RESULT))
        assert api("POST", "/users/me/auto-memory/run", {"force": True}).json()["extracted"] == [task["id"]]
        memories = api("GET", f"/projects/{project.id}/memories").text
    assert "Tidy the docs" in memories and leaked(memories, PRIVATE) == []


# --- the property test: the pure function over generated encodings and wrappings --------------------

_WORDS = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüß私密笔记薪资"),
    min_size=2,
    max_size=9,
)
_PUNCT = st.sampled_from([" ", " ", " ", ", ", "/", ": ", ' "', '" ', " — ", "'", "&", "%", "\\", "-"])


@st.composite
def private_lines(draw: st.DrawFn) -> str:
    words = draw(st.lists(_WORDS, min_size=2, max_size=10))
    line = words[0]
    for word in words[1:]:
        line += draw(_PUNCT) + word
    return line


def _wrap(width: int, joint: str) -> Callable[[str], str]:
    return lambda t: _hard_wrap(t, width, joint)


_STEPS: list[Callable[[str], str]] = [
    *ENCODINGS.values(),
    lambda t: json.dumps(t, ensure_ascii=False),
    lambda t: json.dumps({"type": "agent_message", "text": t}),
    urllib.parse.quote,
    html.escape,
    lambda t: t.replace(" ", "\u2003"),
    lambda t: t.replace(" ", "\r\n"),
    str.title,
]
_WRAPS = [_wrap(w, j) for w in (7, 13, 40, 79) for j in ("\n", "\n> ", "\n// ", "\r\n    ", "\\n", " \\\n")]
ECHOES_PER_EXAMPLE = 10
EXAMPLES = 1_000  # × 10 echoes each = 10,000 generated echoes
generated: list[int] = []


def echo_of(line: str, rnd: random.Random) -> str:
    """The line through 0–3 encodings or wrappings, inside some surrounding text."""
    text = line
    for _ in range(rnd.randint(0, 3)):
        text = rnd.choice(_STEPS + _WRAPS)(text)
    before = rnd.choice(["", "done: ", '{"msg": ', "Output follows\n", "x" * 20])
    return before + text + rnd.choice(["", " and more", '"}\n', "\nThe tests pass."])


@seed(30_000)
@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(rnd=st.randoms(use_true_random=False), line=private_lines())
def test_property_no_generated_echo_leaks_a_private_line(rnd: random.Random, line: str) -> None:
    inj = Injection(prompt="", goal=None, memory_ids=(1,), block="unused block", private=(line,), private_ids=(1,))
    for _ in range(ECHOES_PER_EXAMPLE):
        echo = echo_of(line, rnd)
        kept = withhold(echo, inj)
        assert leaked(kept, line) == [], (line, echo, kept)
        generated.append(1)


def test_property_ran_at_least_ten_thousand_echoes() -> None:
    """Runs after the property test in file order; the count is the property test's own."""
    if not generated:  # run alone (-k): nothing to count
        return
    assert len(generated) >= 10_000


def test_withholding_keeps_text_that_only_shares_short_words() -> None:
    kept = withhold_lines("The band played in March; the review is done.", [PRIVATE])
    assert kept == "The band played in March; the review is done."
