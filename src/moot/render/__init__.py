"""The shared rendering kit: terminal reports, HTML building blocks, GitHub Markdown, cost tables and the
debate's effect, drawn from typed results. Protocols render with it; `moot.reports` assembles the outputs."""
