"""Prompt templates and their rendering: each protocol keeps its templates in its own package
(`protocols/<name>/templates/`) and renders them through `Templates`; `untrusted` and `attr` are the filters
that keep untrusted text inside its delimiters."""

from moot.prompts.render import Templates, render, untrusted

__all__ = ["Templates", "render", "untrusted"]
