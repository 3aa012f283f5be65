"""Request and response bodies: the border where typed records become JSON and back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool
from pydantic.json_schema import SkipJsonSchema

from autopatch_j.cloud.auto_memory_records import LogEntry
from autopatch_j.cloud.memory_settings import AutoMemorySettings, TaskFlags
from autopatch_j.cloud.quotas import QuotaStatus
from autopatch_j.cloud.records import Followup, Memory, Project, Role, Round, Task, User

MAX_ID = 2**31 - 1


def _storable(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from exc
    return value


Text = Annotated[str, AfterValidator(_storable)]
# What the OpenAPI schema promises for free text: no NUL and at least one non-blank character. The
# checks themselves stay in `_storable` and the domain, which answer with clear sentences.
_TEXT_PATTERN = r"^[^\x00]*[^\x00\s][^\x00]*$"
NonBlank = Annotated[Text, Field(json_schema_extra={"pattern": _TEXT_PATTERN})]


def _a_json_number(value: Any) -> Any:
    """Numbers are JSON numbers: `true` is not 1 and "200" is not 200 (JSON Schema's integer 7.0 is 7)."""
    if isinstance(value, bool | str | bytes):
        raise ValueError("must be a JSON number, not a boolean or a string")
    return value


# Numbers and switches are strict: `true` is not 1, `0` is not false, "200" is not 200 (422).
Number = BeforeValidator(_a_json_number)
Id = Annotated[int, Field(ge=1, le=MAX_ID), Number]


class ErrorOut(BaseModel):
    """Every error answer: one sentence."""

    detail: str


_DESCRIPTIONS = {
    401: "A valid bearer token is required.",
    403: "You can see the object, but your role lacks the permission.",
    404: "The object does not exist or is not visible to you.",
    409: "The request conflicts with the stored objects or a rule about them.",
    413: "The request body is larger than the limit.",
    422: "The request does not match the schema (nothing was written).",
    429: "Your monthly quota is exhausted.",
    503: "The database is unreachable.",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the error codes a route can answer, each with the ErrorOut body."""
    return {code: {"model": ErrorOut, "description": _DESCRIPTIONS[code]} for code in codes}


COMMON_ERRORS = errors(401, 413, 422, 503)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProjectIn(Body):
    name: Annotated[NonBlank, Field(min_length=1, max_length=200)]


class MemberIn(Body):
    user_id: Id
    role: Role


class TaskIn(Body):
    prompt: Annotated[NonBlank, Field(min_length=1, max_length=100_000)]
    goal: Annotated[NonBlank, Field(min_length=1, max_length=100_000)] | None = None
    parent_task_id: Id | None = None


class ContinueIn(Body):
    prompt: Annotated[NonBlank, Field(min_length=1, max_length=100_000)]


class FollowupIn(Body):
    to_task_id: Id
    message: Annotated[NonBlank, Field(min_length=1, max_length=20_000)]


class MemoryIn(Body):
    content: Annotated[NonBlank, Field(min_length=1, max_length=4000)]


class SettingsPatch(Body):
    """Any subset of the settings; omitted ones keep their value. The numbers have the ranges of
    `AutoMemorySettings` and are not nullable (null is refused with 422); the model names may be null."""

    generate_memories: Annotated[int, Field(ge=0, le=1), Number] | SkipJsonSchema[None] = None
    use_memories: Annotated[int, Field(ge=0, le=1), Number] | SkipJsonSchema[None] = None
    disable_on_external_context: Annotated[int, Field(ge=0, le=1), Number] | SkipJsonSchema[None] = None
    min_rate_limit_remaining_percent: (
        Annotated[float, Field(ge=0, le=100, allow_inf_nan=False), Number] | SkipJsonSchema[None]
    ) = None
    idle_seconds: Annotated[int, Field(ge=0, le=31_536_000), Number] | SkipJsonSchema[None] = None
    min_duration_seconds: Annotated[int, Field(ge=0, le=31_536_000), Number] | SkipJsonSchema[None] = None
    min_result_chars: Annotated[int, Field(ge=0, le=1_000_000), Number] | SkipJsonSchema[None] = None
    extract_model: Annotated[Text, Field(max_length=200)] | None = None
    consolidation_model: Annotated[Text, Field(max_length=200)] | None = None


class FlagsIn(Body):
    use_memories: StrictBool | None = None
    generate_memories: StrictBool | None = None


class RunIn(Body):
    force: StrictBool = False


class QuotaIn(Body):
    monthly_limit_usd: Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False), Number] | None


class Out(BaseModel):
    pass


class HealthOut(Out):
    status: str


class UserOut(Out):
    id: int
    name: str
    is_admin: bool

    @classmethod
    def of(cls, user: User) -> UserOut:
        return cls(id=user.id, name=user.name, is_admin=user.is_admin)


class ProjectOut(Out):
    id: int
    name: str
    role: Role
    created_at: datetime

    @classmethod
    def of(cls, project: Project, role: Role) -> ProjectOut:
        return cls(id=project.id, name=project.name, role=role, created_at=project.created_at)


class MemberOut(Out):
    project_id: int
    user_id: int
    role: Role


class TaskOut(Out):
    id: int
    project_id: int
    user_id: int
    prompt: str
    goal: str | None
    status: str
    result_text: str | None
    started_at: datetime | None
    finished_at: datetime | None
    parent_task_id: int | None
    cost_usd: float | None = Field(
        description="What the caller paid for this task's rounds; null when the caller paid for none "
        "(spend is visible only to its owner)."
    )
    round: int
    attempt: int = Field(description="How many times a worker claimed the task (capped; see docs/cloud.md).")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, task: Task, *, own_cost: float | None) -> TaskOut:
        """The task as the caller may see it; `own_cost` is what the caller paid for its rounds."""
        fields: dict[str, Any] = {name: getattr(task, name) for name in cls.model_fields}
        fields["status"] = task.status.value
        fields["cost_usd"] = own_cost
        return cls(**fields)


class RoundOut(Out):
    task_id: int
    round: int
    prompt: str
    user_id: int | None = Field(description="Who asked for the round; their quota pays for it.")
    status: str | None
    result_text: str | None
    cost_usd: float | None = Field(description="The round's cost, shown to its payer only (null for others).")
    started_at: datetime | None
    finished_at: datetime | None
    created_at: datetime

    @classmethod
    def of(cls, r: Round, *, viewer_id: int) -> RoundOut:
        fields: dict[str, Any] = {name: getattr(r, name) for name in cls.model_fields}
        fields["cost_usd"] = r.cost_usd if r.user_id == viewer_id else None
        return cls(**fields)


class FollowupOut(Out):
    id: int
    from_task_id: int
    to_task_id: int
    message: str
    created_at: datetime

    @classmethod
    def of(cls, f: Followup) -> FollowupOut:
        return cls(
            id=f.id, from_task_id=f.from_task_id, to_task_id=f.to_task_id, message=f.message, created_at=f.created_at
        )


class MemoryOut(Out):
    id: int
    scope: str
    user_id: int
    project_id: int | None
    content: str
    status: str
    source_thread_id: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, m: Memory) -> MemoryOut:
        return cls(
            id=m.id,
            scope=m.scope.value,
            user_id=m.user_id,
            project_id=m.project_id,
            content=m.content,
            status=m.status.value,
            source_thread_id=m.source_thread_id,
            created_at=m.created_at,
            updated_at=m.updated_at,
        )


class SettingsOut(AutoMemorySettings):
    @classmethod
    def of(cls, s: AutoMemorySettings) -> SettingsOut:
        return cls(**s.model_dump())


class FlagsOut(Out):
    task_id: int
    use_memories: bool | None
    generate_memories: bool | None

    @classmethod
    def of(cls, f: TaskFlags) -> FlagsOut:
        return cls(task_id=f.task_id, use_memories=f.use_memories, generate_memories=f.generate_memories)


class RunOut(Out):
    scanned: int
    extracted: list[int]
    skipped: dict[str, str]


class LogOut(Out):
    task_id: int
    outcome: str
    reason: str
    memory_id: int | None
    at: datetime

    @classmethod
    def of(cls, e: LogEntry) -> LogOut:
        return cls(task_id=e.task_id, outcome=e.outcome, reason=e.reason, memory_id=e.memory_id, at=e.at)


class QuotaOut(Out):
    user_id: int
    monthly_limit_usd: float | None
    spent_usd: float
    remaining_percent: float
    default_applies: bool

    @classmethod
    def of(cls, user_id: int, q: QuotaStatus) -> QuotaOut:
        return cls(
            user_id=user_id,
            monthly_limit_usd=q.limit_usd,
            spent_usd=q.spent_usd,
            remaining_percent=q.remaining_percent,
            default_applies=not q.has_row,
        )


class TokenOut(Out):
    """A user's new API token, shown once."""

    id: int
    token: str
