"""Content stored once. A long string inside a JSON column (a debate's artifact in its request, the system
prompt that every call of a debate sends) is kept in `blobs` and the row holds a reference to it.

The unit kept once is a chunk cut where the content says so (after a line its crc32 picks), not the whole
string: the same artifact sits alone in the request and inside a longer system prompt in every
call, and content-defined cuts give it the same chunks whatever text surrounds it. A string of several
chunks is referenced through a manifest (the list of its chunk keys), so a call row holds one key per long
string however long it is.

A packed row is itself JSON that starts with `PACKED_PREFIX`: the row's text with each long string literal's
contents replaced by a reference. Blobs hold the strings decoded (what the artifact really is, whichever
escaping a row used), and a reference says how to escape them again; a string that does not read back
byte for byte that way is kept as it was escaped. Rows written before packing existed (or too short to
pack) are read as they are.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from itertools import accumulate
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner: finds a literal's end fast

PACKED_PREFIX = '{"@moot_packed":1,'
LONG = 4096  # characters of a string literal's (escaped) contents from which it is stored by reference
MIN_CHUNK = 1024
AVG_CHUNK = 16384  # a line of n characters ends a chunk with odds n / AVG_CHUNK, whatever the lines' length
MAX_CHUNK = 65536  # a chunk is cut here inside a line longer than this
MANIFEST = "m"  # a manifest's key is this + the whole string's sha256; a chunk's key is its sha256
UTF8, ASCII, RAW = "u", "a", "r"  # a reference starts with how its string was escaped, then the blob's key


class MissingBlob(LookupError):
    """A packed row references content the database does not hold (a copied or damaged file)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def long_spans(text: str, known: Sequence[str] = ()) -> list[tuple[int, int, int]]:
    """Where the contents (quotes excluded) of the string literals at least LONG long lie in a JSON text:
    (start, end, i) where `known[i]` is those contents, or i = -1. A known literal is recognised where it
    recurs by comparing it, not scanned, so a 1 MB system prompt seen before costs a memcmp."""
    spans: list[tuple[int, int, int]] = []
    pos = text.find('"') if len(text) >= LONG else -1
    while pos != -1:
        start = pos + 1
        i = next(
            (i for i, k in enumerate(known) if text.startswith(k, start) and text.startswith('"', start + len(k))), -1
        )
        if i >= 0:
            end = start + len(known[i])
        else:
            try:
                end = scanstring(text, start)[1] - 1
            except ValueError:  # not JSON from here on: the rest is kept as it is
                return spans
        if end - start >= LONG:
            spans.append((start, end, i))
        pos = text.find('"', end + 1)
    return spans


def chunk(text: str) -> list[str]:
    """Content-defined chunks whose concatenation is `text`. A line may end a chunk when its crc32 picks it
    (odds proportional to its length, so chunks average AVG_CHUNK whatever the lines), once the chunk is
    MIN_CHUNK long; a chunk that would pass MAX_CHUNK ends at its last line break before that, or at
    MAX_CHUNK inside a longer line. Each cut depends only on the text since the previous one, so text
    shared by two strings gets the same chunks in both from the first cut inside the shared part on."""
    lines = text.split("\n")
    lengths = list(map(len, lines))
    crcs = map(zlib.crc32, map(_utf8, lines))
    picks = [
        end + i + 1  # just after the line's newline
        for i, (end, crc, length) in enumerate(zip(accumulate(lengths), crcs, lengths, strict=True))
        if crc % AVG_CHUNK < length
    ]
    out: list[str] = []
    start = 0
    for cut in [*picks, len(text)]:
        cut = min(cut, len(text))  # the last line has no newline
        while cut - start > MAX_CHUNK:
            forced = text.rfind("\n", start + MIN_CHUNK, start + MAX_CHUNK) + 1 or start + MAX_CHUNK
            out.append(text[start:forced])
            start = forced
        if cut - start >= MIN_CHUNK or (cut == len(text) and cut > start):
            out.append(text[start:cut])
            start = cut
    return out


def _utf8(line: str) -> bytes:
    return line.encode("utf-8", "surrogatepass")


def is_packed(stored: str) -> bool:
    return stored.startswith(PACKED_PREFIX)


def packed_parts(stored: str) -> list[str]:
    """A packed row's parts: literal text at even positions, blob references at odd ones."""
    parts = json.loads(stored)["parts"]
    if not isinstance(parts, list) or len(parts) % 2 != 1 or not all(isinstance(p, str) for p in parts):
        raise ValueError("a packed row whose parts are not text and references in turn")
    return parts


def blob_keys(stored: str) -> list[str]:
    """The keys of the blobs (chunks or manifests) a stored row references; none for a row stored as given."""
    return [ref[1:] for ref in packed_parts(stored)[1::2]] if is_packed(stored) else []


def decoded(span: str) -> tuple[str, str]:
    """How to keep a string literal's contents: ("u" or "a", the string) when escaping it again as JSON
    (text as text, or ASCII only) gives back exactly `span`; ("r", span) otherwise."""
    try:
        value = json.loads(f'"{span}"')
    except ValueError:
        return RAW, span
    for encoding, ascii_only in ((UTF8, False), (ASCII, True)):
        if isinstance(value, str) and json.dumps(value, ensure_ascii=ascii_only)[1:-1] == span:
            return encoding, value
    return RAW, span


def encoded(encoding: str, value: str) -> str:
    """The literal's contents again, from a blob's text and how it was decoded."""
    return value if encoding == RAW else json.dumps(value, ensure_ascii=encoding == ASCII)[1:-1]


def fetch(db: sqlite3.Connection, keys: Iterable[str]) -> dict[str, str]:
    """The stored texts of these keys (the ones held), in batches under SQLite's variable limit."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, str] = {}
    for i in range(0, len(wanted), 500):
        batch = wanted[i : i + 500]
        marks = ", ".join("?" for _ in batch)
        sql = f"SELECT hash, text FROM blobs WHERE hash IN ({marks})"  # noqa: S608 - placeholders only
        found.update((r[0], r[1]) for r in db.execute(sql, batch))
    return found


class Blobs:
    """One store's packing and unpacking, with what it remembers between calls: the literals known to be
    stored (so 13 calls sending the same 1 MB system prompt decode and chunk it once and insert nothing
    after the first), recent chunkings (a string that starts like a recent one reuses its leading chunks)
    and recently read or written literals. The caller holds the store's lock; writes happen inside its
    transaction, and what they stored counts as known only once that transaction commits (`settle`)."""

    def __init__(self, *, known: int = 4096, cached_chars: int = 16_000_000) -> None:
        self._known: OrderedDict[str, str] = OrderedDict()  # sha256 of a literal as written -> its reference
        self._known_max = known
        self._texts: OrderedDict[str, str] = OrderedDict()  # reference -> the literal as written
        self._texts_chars = 0
        self._texts_max = cached_chars
        self._recent: deque[list[tuple[str, str]]] = deque(maxlen=4)  # recent chunkings, for their prefixes
        self._literals: deque[tuple[str, str]] = deque(maxlen=8)  # recent stored literals and their references
        self._pending: list[tuple[str, str, str]] = []

    def pack(self, db: sqlite3.Connection, text: str) -> str:
        """The text to store for `text`: itself when it holds no long string, else a packed row."""
        literals = list(self._literals)
        spans = long_spans(text, [literal for literal, _ in literals])
        if not spans and not is_packed(text):  # a text that looks packed is packed, so that it reads back
            return text
        parts: list[str] = []
        pos = 0
        for a, b, i in spans:
            parts += [text[pos:a], literals[i][1] if i >= 0 else self._put(db, text[a:b])]
            pos = b
        parts.append(text[pos:])
        return PACKED_PREFIX + '"parts":' + json.dumps(parts, ensure_ascii=False) + "}"

    def unpack(self, db: sqlite3.Connection, stored: str) -> str:
        """The text a row was given, whether it was packed or not."""
        if not is_packed(stored):
            return stored
        parts = packed_parts(stored)
        return "".join(p if i % 2 == 0 else self._literal(db, p) for i, p in enumerate(parts))

    def settle(self, committed: bool) -> None:
        """The transaction that wrote the pending literals ended: they are stored if it committed."""
        for literal, literal_hash, ref in self._pending if committed else ():
            self._remember(literal_hash, ref)
            if all(known != ref for _, known in self._literals):
                self._literals.appendleft((literal, ref))
        self._pending.clear()

    def _literal(self, db: sqlite3.Connection, ref: str) -> str:
        cached = self._texts.get(ref)
        if cached is not None:
            self._texts.move_to_end(ref)
            return cached
        key = ref[1:]
        (head,) = self._get(db, [key])
        value = "".join(self._get(db, head.split())) if key.startswith(MANIFEST) else head
        literal = encoded(ref[0], value)
        self._cache(ref, literal)
        return literal

    def _get(self, db: sqlite3.Connection, keys: list[str]) -> list[str]:
        found = fetch(db, keys)
        missing = [k for k in keys if k not in found]
        if missing:
            raise MissingBlob(f"the store holds no blob {missing[0]} (referenced by a stored row)")
        return [found[k] for k in keys]

    def _put(self, db: sqlite3.Connection, span: str) -> str:
        """Store a long literal's contents (unless known to be stored) and return its reference."""
        literal_hash = digest(span)
        ref = self._known.get(literal_hash)
        if ref is None:
            encoding, value = decoded(span)
            ref = encoding + self._store(db, value)
        self._pending.append((span, literal_hash, ref))
        self._cache(ref, span)
        return ref

    def _store(self, db: sqlite3.Connection, value: str) -> str:
        """The key of a string in `blobs`, written (chunks and manifest) unless the store has it."""
        h = digest(value)
        row = db.execute("SELECT hash FROM blobs WHERE hash IN (?, ?)", (h, MANIFEST + h)).fetchone()
        if row is not None:
            return str(row[0])
        pieces = self._chunks(value)
        if len(pieces) == 1:
            db.execute("INSERT OR IGNORE INTO blobs (hash, text) VALUES (?, ?)", pieces[0])
            return h
        rows = [*pieces, (MANIFEST + h, " ".join(k for k, _ in pieces))]
        db.executemany("INSERT OR IGNORE INTO blobs (hash, text) VALUES (?, ?)", rows)
        return MANIFEST + h

    def _chunks(self, value: str) -> list[tuple[str, str]]:
        """(key, chunk) pairs of a new string; the leading chunks it shares with a recent one are reused."""
        reused: list[tuple[str, str]] = []
        for recent in self._recent:
            n = pos = 0
            for _, piece in recent[:-1]:  # the last one ended with its string, not at a cut
                if not value.startswith(piece, pos):
                    break
                n, pos = n + 1, pos + len(piece)
            if n > len(reused):
                reused = recent[:n]
        pos = sum(len(piece) for _, piece in reused)
        pieces = reused + [(digest(c), c) for c in chunk(value[pos:])]
        self._recent.append(pieces)
        return pieces

    def _remember(self, literal_hash: str, ref: str) -> None:
        self._known[literal_hash] = ref
        self._known.move_to_end(literal_hash)
        if len(self._known) > self._known_max:
            self._known.popitem(last=False)

    def _cache(self, ref: str, literal: str) -> None:
        if ref in self._texts:
            return
        self._texts[ref] = literal
        self._texts_chars += len(literal)
        while self._texts_chars > self._texts_max and len(self._texts) > 1:
            _, old = self._texts.popitem(last=False)
            self._texts_chars -= len(old)
