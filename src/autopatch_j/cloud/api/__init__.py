"""The HTTP API: request/response schemas, dependencies, error mapping and one router per noun."""
