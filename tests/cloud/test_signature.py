"""C-44: the worker-code signature covers the worker path (auto memory included) and stops a worker."""

from __future__ import annotations

from pathlib import Path

from autopatch_j.cloud.executors import ScriptedExecutor
from autopatch_j.cloud.signature import PACKAGE_DIR, code_signature, signer, worker_code_paths
from autopatch_j.cloud.worker import Worker
from tests.cloud.world import World


def test_every_worker_path_module_exists_and_auto_memory_is_covered() -> None:
    paths = worker_code_paths()
    assert all(p.exists() for p in paths)
    names = {p.name for p in paths}
    assert {
        "worker.py",
        "auto_memory.py",
        "injection.py",
        "executors.py",
        "queue.py",
        "redaction.py",
        "secret_rules.py",
    } <= names
    assert {"model_memory.py", "model_memory_input.py", "memory_costs.py", "conversation_control.py"} <= names
    assert any(p.parent.name == "versions" for p in paths)
    assert PACKAGE_DIR / "app.py" not in paths  # the API is not on the worker path


def test_the_worker_path_is_derived_from_the_package_not_a_hand_list() -> None:
    paths = set(worker_code_paths())
    top_level = {p for p in PACKAGE_DIR.glob("*.py") if p.name != "app.py"}
    assert top_level <= paths  # every module of the package but the API's entry point
    assert not any({"api", "console"} & set(p.relative_to(PACKAGE_DIR).parts) for p in paths)
    assert PACKAGE_DIR / "migrations" / "env.py" in paths


def test_a_new_module_is_on_the_worker_path_and_http_modules_are_not(tmp_path: Path) -> None:
    for name in ("worker.py", "app.py", "api/routes.py", "console/render.py", "migrations/versions/0001_x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    before = worker_code_paths(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in before] == ["migrations/versions/0001_x.py", "worker.py"]
    (tmp_path / "retry_policy.py").write_text("y = 2\n")  # a module added later, named nowhere
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "nightly.py").write_text("z = 3\n")
    after = {p.relative_to(tmp_path).as_posix() for p in worker_code_paths(tmp_path)}
    assert {"retry_policy.py", "sweeps/nightly.py"} <= after
    assert code_signature(worker_code_paths(tmp_path)) != code_signature(before)


def test_signature_changes_with_content_and_missing_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    sign = signer([a, b])
    first = sign()
    assert sign() == first == code_signature([b, a])
    a.write_text("x = 2\n")
    changed = sign()
    assert changed != first
    b.unlink()
    assert sign() not in (first, changed)


def test_worker_finishes_the_current_task_then_exits_when_code_changes(world: World, tmp_path: Path) -> None:
    module = tmp_path / "auto_memory.py"
    module.write_text("v1\n")
    alice = world.user()
    project = world.project(alice)
    ids = [world.task(project, alice, f"t{i}").id for i in range(3)]

    class DeployDuringFirstTask(ScriptedExecutor):
        def execute(self, request):  # type: ignore[no-untyped-def]
            module.write_text("v2\n")  # a deployment lands while the task runs
            return super().execute(request)

    worker = Worker(
        engine=world.engine, executor=DeployDuringFirstTask(), clock=world.clock, signature=signer([module])
    )
    assert worker.run_loop() == 1
    assert worker.code_changed
    assert [world.load(i).status.value for i in ids] == ["completed", "queued", "queued"]
    assert world.load(ids[0]).lease_owner is None


def test_unchanged_code_keeps_the_worker_running(world: World, tmp_path: Path) -> None:
    module = tmp_path / "worker.py"
    module.write_text("v1\n")
    alice = world.user()
    project = world.project(alice)
    for i in range(3):
        world.task(project, alice, f"t{i}")
    worker = Worker(engine=world.engine, executor=ScriptedExecutor(), clock=world.clock, signature=signer([module]))
    assert worker.run_loop(once=True) == 3 and not worker.code_changed
