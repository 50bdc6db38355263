"""No secret leaves the machine: every text a debate would put in a prompt is screened before any call.

Two screens, both run on what a protocol built (`moot.protocol.prepared.Prepared`), so that every way in
(the command line, the MCP tools, the Python API, batch items, diffs) passes the same gate:

- by name: files that hold credentials whatever their content (`moot.schemas.key_shapes`: private keys,
  `.env` and `*.env`, `.netrc`, `.pgpass`, cloud CLI credentials, kubeconfig; `.npmrc`, `.pypirc` and
  Docker's `config.json` when they hold a token, a password or a registry's auth);
- by content: detect-secrets' maintained detectors (private-key blocks, cloud and vendor tokens, keyword
  assignments such as `password = "..."`), set up only when there is text to screen so that `moot --help`
  stays fast, plus moot's own table of the shapes its release lacks (`KEY_SHAPES`: Anthropic, Google, xAI,
  OpenAI project keys, Hugging Face, GitHub fine-grained...), the table error messages are redacted by.
  Its generic high-entropy detectors are left out: every hash and lockfile digest would trip them.

By default the hits are bad input (`SecretFound`, exit 2): one line naming every one (its file, line and
detector, never the value) and the way on of the door it came by. With `redact=True` each hit is replaced
by `[REDACTED:<kind>]` and listed (`Redaction`), so a result can say what was withheld. Host seats'
replies are screened as inputs (`screen_text`); judges' replies are redacted before another judge reads
them (`moot.engine.ask.passed_on`).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from moot.diffs import new_line_at, shown_lines
from moot.errors import UsageError
from moot.schemas.key_shapes import SCREENED, credential_file_kind

# how to go on, worded for the door the text came by: the CLI's flag here; the MCP tools say their argument
REDACT_FLAG = "--redact-secrets"
DOOR_FLAGS = {"cli": REDACT_FLAG, "mcp": "redact_secrets: true", "python": "redact_secrets=True"}
STORED_REDACT_KEY = "redact_secrets"  # beside a debate's stored request: it was started redacting secrets
MAX_LISTED = 50  # the hits one refusal names (a folder of keys would make a line no one reads)
# the generic detectors: a hash, a digest or a base64 blob is no secret, and they would refuse most diffs
_LEFT_OUT = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"})
_KEY_BLOCK_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----")
# a request's keys that never reach a prompt: where files go, judges' settings (an inline api_key)
_NOT_SENT = frozenset({"judges", "moderator", "proponent", "challengers", "base_dir", "reports_dir", "files_dir"})


class SecretFound(UsageError):
    """Credentials in what would be sent: one line naming every hit (where and which detector, never the
    value), so that one run shows all there is to fix."""

    def __init__(self, hits: Sequence[Hit], how: str | None = None, door: str = "cli") -> None:
        self.hits, self.how = list(hits), how
        super().__init__(for_door(refusal(self.hits, how), door))

    def worded(self, door: str) -> SecretFound:
        """The same refusal, naming `door`'s own flag or argument (`python`: `redact_secrets=True`)."""
        return SecretFound(self.hits, self.how, door)


# how to go on with a host seat's reply: the flag belongs to the start of the debate, not to the reply
IN_A_REPLY = (
    "nothing was stored or sent; remove {them} from the reply and give it again (a debate started with "
    f"{REDACT_FLAG} redacts {{them}} instead)"
)


def refusal(hits: Sequence[Hit], how: str | None = None) -> str:
    """One line for every hit: `a.py:3 holds a secret (AWS Access Key); .env holds a secret (...)`, then how
    to go on (`how`, its `{them}` filled; by default: remove, leave out, or redact with the CLI's flag)."""
    places = list(dict.fromkeys(h.where() for h in hits))  # a diff shows a line twice (hunk, whole text)
    listed = "; ".join(places[:MAX_LISTED])
    if len(places) > MAX_LISTED:
        listed += f"; and {len(places) - MAX_LISTED} more"
    one = len(places) == 1
    them, file, place = ("it", "the file", "its place") if one else ("them", "those files", "their place")
    if how is not None:
        return f"{listed}: {how.format(them=them)}"
    return (
        f"{listed}: nothing was sent; remove {them}, leave {file} out, or pass {REDACT_FLAG} to send "
        f"[REDACTED:<kind>] in {place}"
    )


def redacting(stored_request: Any) -> bool:
    """Whether a stored debate was started with `redact_secrets` (its later inputs, host replies, are redacted
    as its first ones were)."""
    return bool(stored_request.get(STORED_REDACT_KEY)) if hasattr(stored_request, "get") else False


def for_door(message: str, door: str) -> str:
    """A refusal's message (perhaps inside another error's) naming `door`'s own flag or argument."""
    return message.replace(REDACT_FLAG, DOOR_FLAGS[door])


@dataclass(frozen=True)
class Hit:
    """One secret found: where (`source`, a file's path or an argument's name; `line` from 1, 0 for the
    whole file) and what (`kind`, a slug such as `aws-access-key`; `detector`, its name in words)."""

    source: str
    line: int
    kind: str
    detector: str

    def where(self) -> str:
        at = f"{self.source}:{self.line}" if self.line else self.source
        return f"{at} holds a secret ({self.detector})"

    def record(self) -> dict[str, Any]:
        """What a result keeps of a redaction: where and which kind, never the value."""
        return {"source": self.source, "line": self.line or None, "kind": self.kind}


def _slug(words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


def _settings() -> contextlib.AbstractContextManager[None]:
    """detect-secrets with the detectors moot uses, set up the first time there is text to screen (its import
    costs ~0.3 s, so `moot --help` never pays it) and kept for the process: setting them for each screen
    cost ~9 ms a time, and every judge's reply is screened."""
    _configure()
    return contextlib.nullcontext()


@functools.cache
def _configure() -> None:
    before = logging.getLogger("py.warnings").handlers[:]
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import cache_bust, configure_settings_from_baseline

    logging.captureWarnings(False)  # its logger module turns this on at import; moot's warnings stay warnings
    logging.getLogger("py.warnings").handlers = before
    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)  # its debug lines quote the values
    plugins: Any = get_mapping_from_secret_type_to_class().values()
    cache_bust()
    configure_settings_from_baseline(
        {"plugins_used": [{"name": c.__name__} for c in plugins if c.__name__ not in _LEFT_OUT]}
    )


def _found(text: str, source: str) -> list[tuple[int, str, str]]:
    """(line, detector, value) of each secret in `text`: detect-secrets' finds, then those of moot's own
    shapes (`moot.schemas.key_shapes`) that no detector of its found already; in the order of the lines."""
    found = list(_maintained(text, source))
    taken: dict[int, list[str]] = {}
    for line, _detector, value in found:
        taken.setdefault(line, []).append(value)
    for shape in SCREENED:
        for m in shape.pattern.finditer(text):
            line, value = text.count("\n", 0, m.start()) + 1, m.group(0)
            if not any(value in v or v in value for v in taken.get(line, []) if v):
                found.append((line, shape.detector, value))
                taken.setdefault(line, []).append(value)
    return sorted(found, key=lambda f: f[0])


def _maintained(text: str, source: str) -> Iterator[tuple[int, str, str]]:
    """(line, detector, value) of each secret detect-secrets finds in `text`; the caller holds the settings.

    detect-secrets costs milliseconds a line (every detector and filter, called through signature
    inspection): only the lines one of its detectors' own patterns matches are handed to it, which finds the
    same secrets (a regex detector reports nothing on a line none of its patterns match; the keyword
    detector nothing without one of its keywords), each pattern searched once over the whole text."""
    from detect_secrets.core.scan import _process_line_based_plugins

    all_lines = text.splitlines()
    starts = [0]
    for line in all_lines:
        starts.append(starts[-1] + len(line) + 1)
    wanted: set[int] = set()
    *own, words = _candidate_patterns()
    lowered = text.lower()  # the keywords, searched without IGNORECASE (5 times faster); lines stay lines
    lowered_starts = [0]
    for line in lowered.splitlines():
        lowered_starts.append(lowered_starts[-1] + len(line) + 1)
    for rx, where, at in [*((rx, text, starts) for rx in own), (words, lowered, lowered_starts)]:
        for m in rx.finditer(where):
            wanted.update(range(bisect.bisect_right(at, m.start()), bisect.bisect_right(at, m.end()) + 1))
    lines = [(n, all_lines[n - 1]) for n in sorted(wanted) if 0 < n <= len(all_lines)]
    if not lines:
        return
    for secret in _process_line_based_plugins(lines, filename=source):
        yield secret.line_number, secret.type, secret.secret_value or ""


@functools.cache
def _candidate_patterns() -> tuple[re.Pattern[str], ...]:
    """The patterns of every detector moot uses (their own, line-anchored), and the keyword detector's words."""
    from detect_secrets.plugins import keyword
    from detect_secrets.settings import get_plugins

    own = [rx for plugin in get_plugins() for rx in getattr(plugin, "denylist", ())]
    words = keyword.DENYLIST_REGEX if isinstance(keyword.DENYLIST_REGEX, str) else keyword.DENYLIST_REGEX.pattern
    words = words.removesuffix(r"\w*").lower()  # searched in the lowered text; the rest of the word adds nothing
    return (*(re.compile(rx.pattern, rx.flags | re.MULTILINE) for rx in own), re.compile(words))


def scan_text(text: str, source: str) -> list[Hit]:
    """Every secret detect-secrets finds in `text` (named `source` in the hits)."""
    with _settings():
        return _scan(text, source)


def _scan(text: str, source: str) -> list[Hit]:
    """The hits in `text`; in a diff's artifact, at the line of the changed file (0 for a removed line)."""
    if not text.strip():
        return []
    hits = [Hit(source, line, _slug(detector), detector) for line, detector, _ in _found(text, source)]
    if shown_lines(text) is None:
        return hits
    return [replace(h, line=new_line_at(text, h.line) or 0) for h in hits]


def _redact_lines(text: str, source: str) -> tuple[str, list[Hit]]:
    """`text` with each secret replaced: a private key's whole block; a token's whole match; a keyword's value."""
    from detect_secrets.settings import get_plugins

    lines = text.splitlines(keepends=True)
    hits: list[Hit] = []
    found = _found(text, source)
    patterns = [rx for plugin in get_plugins() for rx in getattr(plugin, "denylist", ())]
    patterns += [shape.pattern for shape in SCREENED]
    for number, detector, value in found:
        kind, mark = _slug(detector), f"[REDACTED:{_slug(detector)}]"
        where = number if shown_lines(text) is None else new_line_at(text, number) or 0
        hits.append(Hit(source, where, kind, detector))
        i = number - 1
        if kind == "private-key":
            end = next((j for j in range(i, len(lines)) if _KEY_BLOCK_END.search(lines[j])), len(lines) - 1)
            lines[i : end + 1] = [mark + "\n"] + [""] * (end - i)
            continue
        lines[i] = _redact_line(lines[i], value, mark, patterns)
    return "".join(lines), hits


def _redact_line(line: str, value: str, mark: str, patterns: list[re.Pattern[str]]) -> str:
    """A token's whole match (a detector may report only its prefix, as GitHub's `ghp`), then the value."""

    def whole(m: re.Match[str]) -> str:
        return mark if value and value in m.group(0) else m.group(0)

    for rx in patterns:
        line = rx.sub(whole, line)
    return line.replace(value, mark) if len(value) >= 4 else line


def _screen(text: str, source: str, *, redact: bool, path: str | None = None) -> tuple[str, list[Hit]]:
    """`text` as it may be sent, and its hits: with `redact` each hit replaced, else the text as it was (the
    caller refuses once it has every hit). `path`, when the text is a file's, also screens the file's name: a
    credential file is withheld whole. The caller holds the detectors' settings."""
    kind = credential_file_kind(path, text) if path is not None else None
    if kind is not None:
        hit = Hit(source, 0, kind, f"credential file: {kind.removesuffix('-file').replace('-', ' ')}")
        return (f"[REDACTED:{kind}]" if redact else text), [hit]
    hits = _scan(text, source)
    if not hits or not redact:
        return text, hits
    return _redact_lines(text, source)


def _screen_name(path: str, redact: bool) -> tuple[str, list[Hit]]:
    """A file's name is sent with its text (`<artifact path=...>`), so a key pasted into a name is screened
    too; the message and the record name the file by its redacted name, never the value."""
    hits = _scan(path, "a file name")
    if not hits:
        return path, []
    shown = _redact_lines(path, "a file name")[0]
    return shown, [Hit(shown, 0, hits[0].kind, f"{hits[0].detector} in the file's name")]


def redact_text(text: str) -> str:
    """`text` with every secret the detectors find in it redacted (a title made from redacted inputs)."""
    with _settings():
        return _redact_lines(text, "text")[0] if _scan(text, "text") else text


def refuse_files(files: Sequence[tuple[str, str]]) -> None:
    """Refuse (`SecretFound`, every hit named) the secrets in (path, text) files, by name or content: for a
    protocol that joins files into one text, so that the message names each file and line, not the joined
    text's."""
    with _settings():
        hits = [hit for path, text in files for hit in _screen(text, path, redact=False, path=path)[1]]
    if hits:
        raise SecretFound(hits)


def screen_text(text: str, source: str, *, redact: bool) -> tuple[str, list[Hit]]:
    """One text that will reach a judge's prompt (a host seat's reply, a judge's words passed on): refused
    (`SecretFound`, every hit named) or, with `redact`, returned with each hit replaced, and the hits."""
    with _settings():
        screened, hits = _screen(text, source, redact=redact)
    if hits and not redact:
        raise SecretFound(hits)
    return screened, hits


def screen_request(model: BaseModel, *, redact: bool) -> list[Hit]:
    """Every text of a request that reaches a prompt, screened in place: an artifact (`path` and `text`) under
    its path, any other string under its argument's name. Judges' settings and output folders are skipped.
    Refuses (`SecretFound`, naming every hit) unless `redact`; returns the hits redacted."""
    with _settings():
        hits = _screen_model(model, redact, "")
    if hits and not redact:
        raise SecretFound(hits)
    return hits


def _screen_model(model: BaseModel, redact: bool, where: str) -> list[Hit]:
    hits: list[Hit] = []
    fields = type(model).model_fields
    if "path" in fields and "text" in fields:
        path, named = _screen_name(str(model.path), redact)  # type: ignore[attr-defined]
        if named:
            model.path = path  # type: ignore[attr-defined]
        text, found = _screen(model.text, path, redact=redact, path=path)  # type: ignore[attr-defined]
        if found:
            model.text = text  # type: ignore[attr-defined]
        return named + found
    for name in fields:
        if name in _NOT_SENT:
            continue
        value = getattr(model, name)
        label = f"{where}.{name}" if where else name
        new, found = _screen_value(value, label, redact)
        if found:
            setattr(model, name, new)
            hits.extend(found)
    return hits


def _screen_value(value: Any, label: str, redact: bool) -> tuple[Any, list[Hit]]:
    if isinstance(value, str):
        return _screen(value, label, redact=redact)
    if isinstance(value, BaseModel):
        return value, _screen_model(value, redact, label)
    if isinstance(value, list):
        out, hits = [], []
        for n, item in enumerate(value):
            new, found = _screen_value(item, f"{label}[{n}]", redact)
            out.append(new)
            hits.extend(found)
        return (out if hits else value), hits
    if isinstance(value, dict):
        pairs, hits = {}, []
        for key, item in value.items():
            new, found = _screen_value(item, f"{label}.{key}", redact)
            pairs[key] = new
            hits.extend(found)
        return (pairs if hits else value), hits
    return value, []


def quoted_safely(message: str) -> str:
    """An error message as one line with every secret the detectors find in it redacted: a message quotes
    what the user gave (a path, a diff passed where a path was expected), and that may hold a key."""
    line = " ".join(message.split("\n")) if "\n" in message else message
    try:
        return redact_text(line)
    except Exception:  # the screen itself failing must not hide the error being reported
        return line
