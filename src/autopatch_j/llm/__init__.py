"""LLM providers: protocol, OpenAI-compatible client, canned provider, JSON contracts, diagnostics."""
