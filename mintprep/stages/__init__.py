"""Stages of a command over a Workspace: each takes what it needs and returns what it made."""
