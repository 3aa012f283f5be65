"""autopatch-j: a coding-agent CLI with durable, provenance-checked Memory."""

__version__ = "0.1.0"
