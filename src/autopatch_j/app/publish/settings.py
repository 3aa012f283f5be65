"""The `publish` setting: which files `memory drain` (and the agent hooks) republish after a drain.

    # .autopatch-j/config.toml
    publish = ["agents", "claude"]      # or ["agents"], ["claude"]; [] or absent: off (the default)

`AUTOPATCH_PUBLISH=agents,claude` sets it from the environment (over the file), like every setting
(docs/configuration.md). Read once, at the entry point, through the one configuration mechanism; with
no file and no variable the answer (off) comes without loading it. A bad value is a
`PublishConfigError`: one sentence naming where it came from, exit 5.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from autopatch_j import set_variable
from autopatch_j.app.errors import PublishConfigError

ENV_NAME = "AUTOPATCH_PUBLISH"


def read_publish_targets(environ: Mapping[str, str], root: Path) -> tuple[str, ...]:
    """The targets ("agents", "claude") the project at `root` configures, in the order given; () when
    publishing is off."""
    from autopatch_j.state_dir import ProjectPaths

    config_file = ProjectPaths.for_root(root).config_file
    if not _mentioned(environ, config_file):
        return ()  # the common case, answered without loading pydantic-settings (the hooks' cold start)
    from autopatch_j.app.publish.settings_model import PublishSettings
    from autopatch_j.configuration import ConfigurationError, read_settings

    try:
        return read_settings(PublishSettings, environ, toml_file=config_file).publish
    except ConfigurationError as exc:
        raise PublishConfigError(str(exc)) from exc


def _mentioned(environ: Mapping[str, str], config_file: Path) -> bool:
    """The variable is set, or the file has a `publish` key (or cannot be parsed, which the full read reports)."""
    if set_variable(environ, ENV_NAME) is not None:
        return True
    if not config_file.exists():
        return False
    try:
        with config_file.open("rb") as handle:
            return "publish" in tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return True
