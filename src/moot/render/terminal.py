"""One text result, two faces: plain text with Markdown tables when the output is piped, and rich's
panel, tables and colour at a terminal.

The protocol renderers build a `TextReport` once, so that the two faces cannot drift apart in what they
say. The plain face is what scripts, CI logs and `moot show > file` get, and what tests read: no escape
codes, tables that paste into Markdown. rich is imported only for the terminal face.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal

from moot.schemas.messages import SCRIPTED_JUDGE
from moot.schemas.safe_text import defuse_drawn, safe_data, safe_text

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

Tone = Literal["good", "warn", "bad", "plain"]
TONE_STYLE: dict[str, str] = {"good": "green", "warn": "yellow", "bad": "red", "plain": "blue"}
# A verdict word's colour by its tone. The words are the protocols' own (`ProtocolSpec.verdict`): the caller
# passes them to `render_terminal`, since this layer sits below the protocols.
WORD_TONE_STYLE: dict[str, str] = {"good": "bold green", "warn": "bold yellow", "bad": "bold red"}
# Words of severity and priority, coloured wherever they appear at a terminal, whatever the protocol.
WORD_STYLE: dict[str, str] = {"CRITICAL": "bold red", "MUST": "red", "SHOULD": "yellow", "COULD": "cyan"}
_NUMBER = re.compile(r"^[-+$]?[\d.,]+(%|/5|\+\?| s)?$|^-$|^$")


@dataclass
class TextTable:
    """Rows of cells. A cell written `**x**` is strong: kept as Markdown in plain text, bold at a terminal."""

    columns: list[str]
    rows: list[list[str]]
    title: str = ""
    note: str = ""  # one line under the table: what a column means, what a total leaves out
    terminal_columns: list[str] | None = None  # other headers at a terminal, where there is room to say more


@dataclass
class TextSection:
    """A titled list; `items` may span lines."""

    title: str
    items: list[str]
    bullet: str = "-"


@dataclass
class Paragraph:
    """Prose under a title on its first line: wrapped at 100 columns when piped, to the width at a terminal."""

    title: str
    text: str

    def flat(self) -> str:
        return " ".join(self.text.split())


@dataclass
class Markdown:
    """Markdown written for a person (a protocol's own document): as is when piped, rendered at a terminal."""

    text: str


@dataclass
class Faces:
    """A block that differs between the faces: at a terminal, width is dear and colour says more. Either
    side may be None, to show the block on one face only."""

    plain: TextTable | TextSection | Paragraph | Markdown | str | None
    terminal: TextTable | TextSection | Paragraph | Markdown | str | None


Block = TextTable | TextSection | Paragraph | Markdown | Faces | str


@dataclass
class TextReport:
    headline: str  # the verdict, in a panel at a terminal; "" for a result that opens with its own Markdown
    tone: Tone = "plain"
    facts: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def plain(self) -> str:
        return plain_text(self)


def without_idle_status(table: TextTable) -> TextTable:
    """The table without its last column (Status) when that only says "ok": at a terminal width is dear."""
    if any(row[-1] not in ("ok", "") for row in table.rows):
        return table
    columns = (table.terminal_columns or table.columns)[:-1]
    return TextTable(columns, [row[:-1] for row in table.rows], title=table.title, note=table.note)


# the plain face


def table_lines(table: TextTable) -> list[str]:
    """A Markdown table: it reads as plain text too."""
    out = [table.title] if table.title else []
    out.append("| " + " | ".join(table.columns) + " |")
    out.append("|" + "---|" * len(table.columns))
    out += ["| " + " | ".join(row) + " |" for row in table.rows]
    if table.note:
        out.append(table.note)
    return out


def _block_lines(block: Block) -> list[str]:
    if isinstance(block, Faces):
        return [] if block.plain is None else _block_lines(block.plain)
    if isinstance(block, TextTable):
        return table_lines(block)
    if isinstance(block, TextSection):
        return [block.title, *(f"  {block.bullet} {item}".rstrip() for item in block.items)]
    if isinstance(block, Paragraph):
        return textwrap.wrap(f"{block.title} {block.flat()}", 100, break_on_hyphens=False)
    if isinstance(block, Markdown):
        return [block.text.rstrip("\n")]
    return [block]


def plain_text(report: TextReport) -> str:
    """The plain face; judge text in it is inert (no control characters, no workflow command)."""
    out = [report.headline, *report.facts] if report.headline else []
    for block in report.blocks:
        lines = _block_lines(block)
        out += ["", *lines] if lines and out else lines
    return safe_text("\n".join(out) + "\n")


# the terminal face


class Drawn(str):
    """Text drawn by rich for a terminal: its escape codes are rich's own, from inert text (`inert`), so
    the output edge (`moot.cli.output.emit`) passes it as it is."""

    __slots__ = ()


def inert(value: Any) -> Any:
    """A report (or any of its blocks) with every string in it made inert (`safe_text`), before rich
    draws it: once drawn, rich's escape codes and a judge's could no longer be told apart."""
    if is_dataclass(value) and not isinstance(value, type):
        return replace(value, **{f.name: inert(getattr(value, f.name)) for f in fields(value) if f.init})
    if isinstance(value, list):
        return [inert(v) for v in value]
    return safe_data(value)


class Colours:
    """The words coloured wherever they appear: the verdict words given (word -> tone: good, warn, bad),
    then the severity words (`WORD_STYLE`)."""

    def __init__(self, words: Mapping[str, str] | None = None) -> None:
        verdicts = {word: WORD_TONE_STYLE[tone] for word, tone in (words or {}).items() if tone in WORD_TONE_STYLE}
        self.styles = {**verdicts, **{w: s for w, s in WORD_STYLE.items() if w not in verdicts}}
        self.pattern = re.compile(r"\b(" + "|".join(map(re.escape, self.styles)) + r")\b")

    def styled(self, text: str, base: str = "") -> Text:
        """Plain words, with the result words coloured and a `**strong**` cell in bold."""
        from rich.text import Text

        strong = len(text) > 4 and text.startswith("**") and text.endswith("**")
        out = Text(text[2:-2] if strong else text, style="bold" if strong else base)
        for m in self.pattern.finditer(out.plain):
            out.stylize(self.styles[m.group(1)], m.start(), m.end())
        return out


_PLAIN_COLOURS = Colours()


def _numeric(cells: Sequence[str]) -> bool:
    return all(_NUMBER.match(c.strip("*")) for c in cells) and any(c for c in cells)


def rich_table(table: TextTable, colours: Colours = _PLAIN_COLOURS) -> RenderableType:
    from rich import box
    from rich.table import Table as RichTable

    headers = table.terminal_columns or table.columns
    t = RichTable(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,  # two spaces between columns, not three: a model name fits whole at 80 columns
        title=table.title or None,
        title_justify="left",
        title_style="bold",
        caption=table.note or None,
        caption_justify="left",
        caption_style="dim",
        header_style="bold",
    )
    for i, name in enumerate(headers):
        cells = [row[i] for row in table.rows if i < len(row)]
        numeric = i > 0 and _numeric(cells)
        t.add_column(name, justify="right" if numeric else "left", overflow="fold")
    for row in table.rows:
        t.add_row(*(colours.styled(c) for c in row))
    return t


def _section(section: TextSection, colours: Colours) -> RenderableType:
    from rich.console import Group
    from rich.table import Table as RichTable

    _styled = colours.styled
    if len(section.items) == 1:
        return _styled(section.title, "bold") + " " + _styled(section.items[0])
    grid = RichTable.grid(padding=(0, 1))
    grid.add_column(style="dim")
    grid.add_column(overflow="fold")
    for item in section.items:
        grid.add_row(section.bullet, _styled(item))
    return Group(_styled(section.title, "bold"), grid)


_STRUCTURE = re.compile(r"^\s*([-*+] |\d+\. |\||#|```|>)")


def _hard_breaks(text: str) -> str:
    """Markdown would join consecutive lines into one paragraph; these documents write one fact a line."""
    lines = text.split("\n")
    out = []
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        joined = line.strip() and after.strip() and not _STRUCTURE.match(line) and not _STRUCTURE.match(after)
        out.append(line + "  " if joined else line)
    return "\n".join(out)


def _renderable(block: Block, colours: Colours) -> RenderableType | None:
    if isinstance(block, Faces):
        return None if block.terminal is None else _renderable(block.terminal, colours)
    if isinstance(block, TextTable):
        return rich_table(block, colours)
    if isinstance(block, TextSection):
        return _section(block, colours)
    if isinstance(block, Paragraph):
        return colours.styled(block.title, "bold") + " " + colours.styled(block.flat())
    if isinstance(block, Markdown):
        from rich.markdown import Markdown as RichMarkdown

        # links as text and URL, not as terminal hyperlinks: an OSC 8 escape would carry a judge's URL
        return RichMarkdown(_hard_breaks(block.text), hyperlinks=False)
    return colours.styled(block)


def _panel(report: TextReport, colours: Colours) -> RenderableType:
    from rich.console import Group
    from rich.panel import Panel

    head = colours.styled(report.headline, "bold")
    facts = [colours.styled(f, "dim") for f in report.facts]
    return Panel(Group(head, *facts), border_style=TONE_STYLE[report.tone], expand=False)


def _kind(block: Block) -> str:
    """Prose sections run together at a terminal, and so do one-line notes; a blank line separates
    anything else (tables, multi-line text) from its neighbours."""
    face = block.terminal if isinstance(block, Faces) else block
    if isinstance(face, TextSection | Paragraph):
        return "prose"
    if isinstance(face, str) and "\n" not in face:
        return "line"
    return "table" if isinstance(face, TextTable) else "block"


def render_terminal(report: TextReport, console: Console, words: Mapping[str, str] | None = None) -> Drawn:
    """The report as `console` would print it (its colours, its width), captured as a string; the
    report's own text is made inert first, and no line rich wrapped may start a workflow command.
    `words`: the verdict words to colour wherever they appear, each with its tone (good, warn, bad)."""
    report = inert(report)
    colours = Colours(words)
    with console.capture() as captured:
        if report.headline:
            console.print(_panel(report, colours))
        previous = ""
        for block in report.blocks:
            renderable = _renderable(block, colours)
            if renderable is None:
                continue
            kind = _kind(block)
            if previous and (kind != previous or kind not in ("prose", "line")):
                console.print()
            console.print(renderable)
            previous = kind
    return Drawn(defuse_drawn(captured.get()))


def model_cell(label: str, answered_by: str) -> str:
    """The configured model, and the one that answered when that says something new (a fallback took the
    seat); a scripted judge is labelled as one, so it never passes for the model it stands in for."""
    if not answered_by or answered_by in label or answered_by.startswith(label):
        return label
    if answered_by == SCRIPTED_JUDGE and "scripted" in label:
        return label
    return f"{label} (answered by {answered_by})"


def _shared_start(texts: list[str]) -> str:
    start = texts[0]
    for t in texts[1:]:
        while not t.startswith(start):
            start = start[:-1]
    return start


def files_line(what: str, paths: list[str]) -> str:
    """Files written, in one line: `dir/stem.{1,2,3,consensus}.md` when they share a folder and a name."""
    folders = {str(PurePath(p).parent) for p in paths}
    names = [PurePath(p).name for p in paths]
    if len(folders) != 1 or len(names) < 2:
        return f"{what}: " + ", ".join(paths)
    head = _shared_start(names)
    tail = _shared_start([n[len(head) :][::-1] for n in names])[::-1]
    parts = [n[len(head) : len(n) - len(tail)] for n in names]
    return f"{what}: {PurePath(folders.pop(), head)}{{{','.join(parts)}}}{tail}"
