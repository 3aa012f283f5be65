"""`autopatch-j mcp`: one project's Memory served over the Model Context Protocol (official `mcp` SDK).

Not named `mcp`: that would shadow the SDK. Imported only by the `mcp` command (CLI cold start).
"""
