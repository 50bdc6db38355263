"""Renderers: pure functions of a result or debate record (Markdown, text, JSON/YAML, HTML), plus the
seed 003 report files on disk, which are appended round by round."""
