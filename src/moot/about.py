"""What moot is, as the installed package states it: its version and its address.

Both are written once, in pyproject.toml (`version` and `[project.urls]`), and reach here through the
package's metadata, so SARIF's `informationUri`, `moot --version` and the release files cannot drift from
them. A source tree that was never installed has no metadata: callers get None and leave the field out.
"""

from __future__ import annotations

from functools import cache


@cache
def project_urls() -> dict[str, str]:
    """`[project.urls]` as a mapping of label to URL; empty when moot is not installed."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        entries = metadata("moot").get_all("Project-URL") or []
    except PackageNotFoundError:
        return {}
    pairs = (entry.split(",", 1) for entry in entries if "," in entry)
    return {label.strip(): url.strip() for label, url in pairs}


def repository_url() -> str | None:
    """The project's repository, as pyproject.toml's `[project.urls]` names it."""
    return project_urls().get("Repository")


def version() -> str | None:
    """The installed moot's version; None for a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("moot")
    except PackageNotFoundError:
        return None
