"""Prompt templates (one file per protocol and round, under templates/) and their rendering."""

from moot.prompts.render import render, untrusted

__all__ = ["render", "untrusted"]
