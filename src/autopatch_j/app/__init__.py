"""The service layer under every face (the CLI, the REPL and the MCP server).

`context.AppContext` (settings read once, the project's Memory), `errors` (each package's root
exception → one sentence and an exit code), `payloads` (the JSON every face returns), `pipelines`
and `providers` (the Memory pipeline and the LLM provider of a process), `render` (output that
starts without rich), `signals` (SIGINT/SIGTERM for one process) and `gitignore`. No face imports
another: the CLI and the MCP server both import this package, never each other.
"""
