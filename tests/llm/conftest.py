from tests.support.fixtures import openai_server  # noqa: F401
