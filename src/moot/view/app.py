"""`moot view`'s web app: Starlette routes over the read-only store, Jinja pages, moot's own script.

Every route is a GET that reads; an id or key that the store or the runs folder does not hold answers 404,
and no route turns part of a URL into a file path (static files are a fixed table, bench runs are matched
against the folders that exist).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from moot.view import benches, pages
from moot.view.batches import BatchPage, all_progress, batch_page
from moot.view.debates import SORTS, Query, choices, list_debates
from moot.view.index import DebateIndex, Snapshot
from moot.view.reader import ReadOnlyStore, StoreReader
from moot.view.render import render, static_file
from moot.view.security import Guard


class Viewer:
    """The routes, over one store and one home folder."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.reader = StoreReader(home / "moot.db")
        self.known = DebateIndex()

    def _store(self) -> ReadOnlyStore | None:
        return self.reader.store()

    def _batches(self) -> bool:
        return self.reader.has_table("batch_items")

    def warm(self) -> None:
        """Read every debate into the index in the background as the server starts, so that the first
        visitor does not wait for it (the first list of a 10,000-debate store takes about a second)."""
        store = self._store()
        if store is not None:
            threading.Thread(
                target=self.known.current, args=(store,), kwargs={"batches": self._batches()}, daemon=True
            ).start()

    def _snapshot(self, store: ReadOnlyStore) -> Snapshot:
        return self.known.current(store, batches=True)

    def _page(self, template: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(render(template, path=request.url.path, **values), status_code=status)

    def index(self, request: Request) -> Response:
        return RedirectResponse("/debates", status_code=302)

    def debates(self, request: Request) -> Response:
        query = Query.from_params(request.query_params)
        store = self._store()
        batches = self._batches()
        listing = list_debates(store, self.known, query, batches=batches) if store else None
        offered = choices(store, self.known, batches=batches) if store else {}
        return self._page(
            "debates.html.j2", request, query=query, listing=listing, choices=offered, sorts=list(SORTS), store=store
        )

    def debate(self, request: Request) -> Response:
        store = self._store()
        page = pages.debate_page(store, request.path_params["id"], batches=self._batches()) if store else None
        if page is None:
            raise HTTPException(404, "no such debate")
        return self._page("debate.html.j2", request, page=page)

    def call(self, request: Request) -> Response:
        store = self._store()
        page = pages.call_page(store, request.path_params["id"], request.path_params["n"]) if store else None
        if page is None:
            raise HTTPException(404, "no such call")
        part = request.query_params.get("part") == "1"  # the call's body alone, for the debate page's script
        return self._page("_call.html.j2" if part else "call.html.j2", request, page=page)

    def batches(self, request: Request) -> Response:
        store = self._store()
        rows = all_progress(store, self._snapshot(store)) if store and self._batches() else []
        return self._page("batches.html.j2", request, rows=rows)

    def batch(self, request: Request) -> Response:
        return self._page("batch.html.j2", request, page=self._batch_page(request))

    def batch_progress(self, request: Request) -> Response:
        """Where a batch stands, as JSON: what a script (or a page without the live script) polls."""
        return JSONResponse(self._batch_page(request).progress.as_json())

    def _batch_page(self, request: Request) -> BatchPage:
        """The batch the path names, for its page and its progress alike: a 404 when there is none."""
        store = self._store()
        page = (
            batch_page(store, request.path_params["id"], self._snapshot(store)) if store and self._batches() else None
        )
        if page is None:
            raise HTTPException(404, "no such batch")
        return page

    def benches(self, request: Request) -> Response:
        runs = [r for r in (benches.load_run(self.home, k) for k in benches.run_keys(self.home)) if r]
        return self._page("benches.html.j2", request, runs=[benches.summary_of(r) for r in runs])

    def bench(self, request: Request) -> Response:
        run = benches.load_run(self.home, request.path_params["key"])
        if run is None:
            raise HTTPException(404, "no such bench run")
        store = self._store()
        batch = benches.bench_batch(store, run) if self._batches() else None
        return self._page(
            "bench.html.j2",
            request,
            run=run,
            batch=batch,
            report=pages.bench_body(run.result) if run.result else None,
            debates=benches.item_debates(store, batch),
        )

    def compare(self, request: Request) -> Response:
        store = self._store()
        ids = [request.query_params.get(k, "").strip() for k in ("a", "b")]
        found = [pages.debate_page(store, i, batches=self._batches()) if store and i else None for i in ids]
        missing = [i for i, p in zip(ids, found, strict=True) if i and p is None]
        if missing:
            raise HTTPException(404, "no such debate: " + ", ".join(missing))
        return self._page("compare.html.j2", request, ids=ids, pages=found)

    def static(self, request: Request) -> Response:
        found = static_file(request.path_params["name"])
        if found is None:
            raise HTTPException(404, "no such file")
        body, media = found
        return Response(body, media_type=media)

    def not_found(self, request: Request, exc: Exception) -> Response:
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "error"
        return self._page("error.html.j2", request, status=code, code=code, detail=detail)


def create_app(home: Path, *, token: str | None = None, loopback_only: bool = True) -> Guard:
    """The viewer over the store and bench runs under `home` ($MOOT_HOME)."""
    v = Viewer(home)
    routes = [
        Route("/", v.index),
        Route("/debates", v.debates),
        Route("/debates/{id}", v.debate),
        Route("/debates/{id}/calls/{n}", v.call),
        Route("/batches", v.batches),
        Route("/batches/{id}", v.batch),
        Route("/batches/{id}/progress.json", v.batch_progress),
        Route("/benches", v.benches),
        Route("/benches/{key}", v.bench),
        Route("/compare", v.compare),
        Route("/static/{name}", v.static),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        v.warm()
        yield

    app = Starlette(routes=routes, exception_handlers={HTTPException: v.not_found}, lifespan=lifespan)
    app.state.viewer = v
    return Guard(app, token=token, loopback_only=loopback_only)
