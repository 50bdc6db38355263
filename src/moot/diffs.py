"""A change as what judges read: a unified diff (a patch file, standard input, or `git diff` over a range in
the current work tree) turned into one artifact per changed file.

What a judge sees of a changed file: each hunk, every line numbered as in the NEW file (`  12 + added`,
`  13   context`; a removed line has no new number: `     - removed`), with git's few lines of context,
then the file's whole new text, numbered, when it has at most `FULL_TEXT_LINES` lines. Files the change
leaves alone are never sent. Binary files, deleted files and renames without an edit are named on one line
each (`skipped`) and not sent; a diff with nothing left to judge is bad input (`UsageError`, exit 2).

Parsing is unidiff's (a maintained library); reading git is `git diff`, run without a shell.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from moot.access import check_read, current, link_out_of, never_read
from moot.errors import UsageError
from moot.schemas.config import Artifact

FULL_TEXT_LINES = 400  # a changed file this short is also sent whole (numbered), so judges see its context
CONTEXT_LINES = 3  # git's default: the unchanged lines shown around each change
HEADER = "# changes to {path} (lines numbered as in the new file; + added, - removed)\n"
FULL_HEADER = "\n# {path} after the change, whole\n"
_NUMBERED = re.compile(r"^ *(\d+) [ +] ", re.MULTILINE)


@dataclass
class Change:
    """The change as judged: one artifact per changed text file, and why any other file was left out."""

    artifacts: list[Artifact]
    skipped: list[str] = field(default_factory=list)


def shown_lines(text: str) -> set[int] | None:
    """The new-file line numbers an artifact built here shows (None: not a diff artifact, the whole file)."""
    if not text.startswith(HEADER.split("{", 1)[0]):
        return None
    return {int(m.group(1)) for m in _NUMBERED.finditer(text)}


def new_line_at(text: str, line: int) -> int | None:
    """The new-file line number that line `line` of a diff artifact shows (None: a removed or header line)."""
    lines = text.splitlines()
    found = _NUMBERED.match(lines[line - 1] + " ") if 0 < line <= len(lines) else None
    return int(found.group(1)) if found else None


def _git(args: list[str], cwd: Path, what: str = "") -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UsageError("--diff needs git, which is not on PATH (or pass a patch with --patch)") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise UsageError(f"git diff {what}: {why}" if what else f"--diff: {why}")
    return done.stdout


def git_change(rev_range: str, cwd: Path | None = None) -> Change:
    """`git diff REV_RANGE` in the work tree (`HEAD~1`, `main...HEAD`, a commit); the new side's text is
    read from the range's right end, or from the work tree when the range has none."""
    if not rev_range.strip() or rev_range.startswith("-"):
        raise UsageError(f"--diff takes a git revision range such as HEAD~1 or main...HEAD (got {rev_range!r})")
    where = _work_tree(cwd)
    _git(["rev-parse", "--is-inside-work-tree"], where)
    top = Path(_git(["rev-parse", "--show-toplevel"], where).strip())
    check_read(top)  # over MCP: a repository that reaches outside the roots is refused
    text = _git(["diff", "--no-color", "--no-ext-diff", "-M", f"-U{CONTEXT_LINES}", rev_range, "--"], where, rev_range)
    right = re.split(r"\.\.\.?", rev_range)[1] if ".." in rev_range else None

    def new_text(path: str) -> str | None:
        if right is not None:
            shown = subprocess.run(
                ["git", "show", f"{right or 'HEAD'}:{path}"], cwd=top, capture_output=True, text=True, check=False
            )
            return shown.stdout if shown.returncode == 0 else None
        file = top / path
        if file.is_symlink() or link_out_of(file, top) is not None or never_read(file) or not file.is_file():
            return None  # a link (or a folder linked on the way) is not followed: its target may be anywhere
        return file.read_text(encoding="utf-8", errors="replace")

    return change_of(text, f"the diff {rev_range}", new_text)


def _work_tree(cwd: Path | None) -> Path:
    """Where git runs: the folder given, else the working folder; over MCP a folder inside the call's roots
    (the first root, unless the folder given is inside one), never the server's own working folder."""
    folders = current()
    if folders is None:
        return cwd or Path.cwd()
    if not folders.roots:
        raise folders.refusal("a git work tree", "read")
    return cwd if cwd is not None and folders.inside(cwd) else folders.roots[0]


def patch_change(source: str) -> Change:
    """A unified diff from a file, or from standard input when `source` is `-`; the new text is not known
    beyond the hunks (a patch may not match any files here)."""
    if source == "-":
        if current() is not None:  # a tool call: the server's standard input is its client's channel
            raise UsageError("patch '-' reads standard input, which only the command line has: give a patch file")
        text = sys.stdin.read()
        where = "the patch on standard input"
    else:
        path = Path(source)
        check_read(path)  # over MCP: outside the roots, one refusal whether the file exists or not
        special = never_read(path)
        if special:
            raise UsageError(f"patch {source} is {special}: never read")
        if not path.is_file():
            raise UsageError(f"no such patch file: {source}" if not path.exists() else f"{source} is not a file")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"cannot read patch {source}: {e}") from None
        where = f"patch {source}"
    return change_of(text, where, lambda _path: None)


def change_of(text: str, where: str, new_text: Callable[[str], str | None]) -> Change:
    """The artifacts of a unified diff's text; `new_text(path)` gives a changed file's whole new text when known."""
    from unidiff.errors import UnidiffParseError
    from unidiff.patch import PatchSet

    if not text.strip():
        raise UsageError(f"{where} holds no changes: nothing to judge")
    try:
        patch = PatchSet(text)
    except UnidiffParseError as e:
        raise UsageError(f"{where} is not a unified diff: {e}") from None
    if not len(patch):
        raise UsageError(f"{where} is not a unified diff: no file header (--- a/..., +++ b/...)")
    change = Change([])
    for changed in patch:
        path = _strip(changed.target_file if not changed.is_removed_file else changed.source_file)
        if changed.is_binary_file:
            change.skipped.append(f"{path}: a binary file, not sent")
        elif changed.is_removed_file:
            change.skipped.append(f"{path}: deleted, nothing left to judge in it")
        elif not len(changed):
            change.skipped.append(f"{path}: renamed from {_strip(changed.source_file)} unchanged, not sent")
        elif _is_link(changed):  # its text is the target's name; the target itself is never read
            change.skipped.append(f"{path}: a symbolic link, sent as its target's name; the target is not read")
            change.artifacts.append(Artifact(path=path, text=_render(path, changed, None)))
        else:
            change.artifacts.append(Artifact(path=path, text=_render(path, changed, new_text(path))))
    if not change.artifacts:
        raise UsageError(f"{where} leaves nothing to judge: " + "; ".join(change.skipped))
    return change


_LINK_MODE = re.compile(r"^(?:new file mode|new mode|index [0-9a-f]+\.\.[0-9a-f]+) 120000\b")


def _is_link(changed: object) -> bool:
    """A changed file git records as a symbolic link (mode 120000)."""
    return any(_LINK_MODE.match(str(line)) for line in getattr(changed, "patch_info", None) or ())


def _strip(name: str) -> str:
    return name[2:] if name.startswith(("a/", "b/")) else name


def _render(path: str, changed: object, whole: str | None) -> str:
    """One changed file as judges read it: its hunks numbered by new-file line, then its whole new text if short."""
    out = [HEADER.format(path=path)]
    if getattr(changed, "is_rename", False):
        out.append(f"# renamed from {_strip(getattr(changed, 'source_file', ''))}\n")
    for hunk in changed:  # type: ignore[attr-defined]
        out.append(f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@\n")
        for line in hunk:
            number = "" if line.target_line_no is None else str(line.target_line_no)
            kind = {"+": "+", "-": "-"}.get(line.line_type, " ")
            if line.line_type == "\\":
                continue
            out.append(f"{number:>5} {kind} {line.value.rstrip(chr(10))}\n")
    if whole is not None and whole.count("\n") <= FULL_TEXT_LINES:
        out.append(FULL_HEADER.format(path=path))
        out.extend(f"{n:>5}   {text}\n" for n, text in enumerate(whole.splitlines(), 1))
    return "".join(out)
