"""Agents: intent routing, the ordinary ReAct agent, repair agents and their tools."""
