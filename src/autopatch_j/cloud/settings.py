"""Cloud settings, read once by the CLI and passed down (never at import time).

The same mechanism as the LLM settings (`autopatch_j.configuration`): the command's options over
`AUTOPATCH_CLOUD_*` variables over the defaults. No TOML file: the control plane is a service, not
a project, so it is configured the way services are deployed (environment and options); see
docs/configuration.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from autopatch_j.cloud.errors import ConfigError
from autopatch_j.configuration import ConfigurationError, LayeredSettings, read_settings, settings_config
from autopatch_j.llm.config import LLMSettings

ExecutorName = Literal["scripted", "command", "llm"]


def default_db_url() -> str:
    """A SQLite file in the user's data directory: the zero-configuration embedded default."""
    import platformdirs

    data_dir = Path(platformdirs.user_data_dir("autopatch-j", appauthor=False))
    return f"sqlite:///{data_dir / 'cloud.sqlite3'}"


class CloudSettings(LayeredSettings):
    """Every knob of the control plane; environment variables use the prefix `AUTOPATCH_CLOUD_`."""

    model_config = settings_config("AUTOPATCH_CLOUD_")

    db: str = Field(default_factory=default_db_url, description="SQLAlchemy database URL.")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    lease_seconds: float = Field(default=300.0, gt=0)
    max_attempts: int = Field(default=5, ge=1, le=100)
    sweep_batch: int = Field(default=200, ge=1, le=100_000)
    sweep_pass_seconds: float = Field(default=30.0, ge=0)
    poll_seconds: float = Field(default=1.0, gt=0)
    worker_id: str | None = None
    executor: ExecutorName = "scripted"
    scripted_cost_usd: float = Field(default=0.01, ge=0)
    command: str = "codex exec"
    command_timeout_seconds: float = Field(default=600.0, gt=0)
    work_dir: Path | None = None
    llm_base_url: str = "http://127.0.0.1:8080/v1"
    llm_api_key: str = "not-needed"
    llm_model: str = "gpt-4o-mini"
    llm_timeout_seconds: float = Field(default=120.0, gt=0)
    llm_input_usd_per_token: float = Field(default=0.00000015, ge=0)
    llm_output_usd_per_token: float = Field(default=0.0000006, ge=0)
    # C-40: the service's memory LLM (any OpenAI-compatible endpoint; unset = deterministic
    # only) and the caps of model-written memories, checked before every call and failing closed.
    memory_llm_base_url: str | None = None
    memory_llm_api_key: str = Field(default="not-needed", repr=False)
    memory_llm_timeout_seconds: float = Field(default=60.0, gt=0)
    memory_sweep_max_tokens: int = Field(default=200_000, ge=0)
    memory_sweep_max_usd: float = Field(default=0.50, ge=0)
    memory_user_daily_max_tokens: int = Field(default=500_000, ge=0)
    memory_user_daily_max_usd: float = Field(default=1.00, ge=0)

    def memory_llm(self) -> LLMSettings | None:
        """The service's memory LLM as the LLM layer's settings, or None when none is configured
        (`memory_llm_base_url` unset). Its model is the cloud's `llm_model`; each memory call names the
        user's own model instead."""
        if not self.memory_llm_base_url:
            return None
        return LLMSettings(api_key=self.memory_llm_api_key, base_url=self.memory_llm_base_url, model=self.llm_model)

    @field_validator("db")
    @classmethod
    def _db_is_url(cls, value: str) -> str:
        if "://" not in value:
            raise ValueError("the database must be a URL such as sqlite:///path or postgresql+psycopg://…")
        return value


def read_cloud_settings(environ: Mapping[str, str], **options: Any) -> CloudSettings:
    """Options (None = not given) over `environ` over defaults; a bad value is a one-sentence `ConfigError`."""
    try:
        return read_settings(CloudSettings, environ, overrides=options)
    except ConfigurationError as exc:
        raise ConfigError(str(exc)) from exc
