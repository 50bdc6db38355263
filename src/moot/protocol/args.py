"""A protocol's arguments, declared once: one pydantic model (`ProtocolArgs`) per protocol, each field the
API's name, type and default, with an `Arg` in its `Field` saying how the command (`moot NAME`) and the MCP
tool spell it where they differ (a flag, a positional argument, another name or type or default, a help
text). From the model come:

- the public function's signature (`api_signature`, `api_function`) and its sync twin;
- the command's and the tool's parameters (`params_of`: one `Param` each, read by `moot.cli.protocol_cmd`
  and `moot.mcp.server`);
- the values those adapters collect, put back in the API's names (`adapt_to`) and made an `Args`
  (`args_from`), which is what the protocol's builder takes: no `locals()`, no untyped hop between them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Coroutine, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from moot.engine.core import STORED_SAMPLING_KEY
from moot.protocol.panel import apply_max_cost, options_from_panel, with_author
from moot.protocol.prepared import Prepared, RunOptions, check_input_cap, run_prepared
from moot.secrets import SecretFound
from moot.store.db import Store


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


class _Same:
    """An MCP default that is the CLI's."""

    def __repr__(self) -> str:
        return "SAME"


SAME: Any = _Same()


@dataclass(frozen=True, kw_only=True)
class Offer:
    """How the command and the tool word a parameter (declared here once: a protocol's `Arg` says it for a
    field, and the `Param` the adapters read carries it over whole)."""

    help: str = ""  # the CLI's help, and the MCP description unless `mcp_help` is given
    flags: tuple[str, ...] = ()  # the CLI's spellings (`("--solution", "-s")`); a bool gives its one flag
    argument: bool = False  # a positional CLI argument
    mcp_help: str | None = None
    mcp_type: Any = None  # the MCP annotation when it differs from the parameter's type
    mcp_default: Any = SAME  # the MCP tool's default when it differs from the CLI's
    cli: bool = True  # offered by the CLI
    mcp: bool = True  # offered by the MCP tool


def offer_of(offer: Offer) -> dict[str, Any]:
    """An `Offer`'s fields, as keywords: what a `Param` takes over from an `Arg` (or another `Param`)."""
    return {f.name: getattr(offer, f.name) for f in fields(Offer)}


@dataclass(frozen=True)
class Param(Offer):
    """One parameter of a protocol's command and tool, as the two adapters take it: the CLI option (or
    argument) and the MCP tool's argument derive from it (`moot.cli.protocol_cmd`, `moot.mcp.server`), so
    that the two cannot word or type it differently. A protocol's come from its `Args` (`params_of`)."""

    name: str  # the Python name (`max_rounds`); the CLI spells it `--max-rounds` unless `flags` says otherwise
    type: Any  # the annotation: `str`, `int | None`, `list[str] | None`, `bool`, ...
    default: Any = REQUIRED


@dataclass(frozen=True, kw_only=True)
class Arg(Offer):
    """How the command and the tool offer one field of a protocol's `Args`, where it is not the API's own
    spelling. `name`, `type` and `default` are the adapters' when they differ from the field's; `convert`
    turns the adapters' value back into the API's (given all their values, by the adapters' names)."""

    positional: bool = False  # the API function takes it by position too (else by keyword only)
    name: str | None = None  # the command's and tool's name (`option` for `options`)
    type: Any = None  # the command's (and tool's) annotation, when it is not the field's
    default: Any = SAME  # the command's (and tool's) default, when it is not the field's
    api: bool = True  # False: the adapters' alone (`--no-input`), not in the function's signature
    convert: Callable[[Any, Mapping[str, Any]], Any] | None = None
    sampling: bool = False  # a run option sent in every judge's request of the debate (`RunArgs.sampling`)


# every protocol's `redact_secrets`: a secret in what would be sent refuses the run unless it may be redacted
REDACTING = Arg(
    flags=("--redact-secrets",),
    help="Send [REDACTED:<kind>] in place of each secret found in the inputs, instead of refusing to run.",
    mcp_help="Send [REDACTED:<kind>] in place of each secret found in the inputs (default: refuse to run).",
)


def arg(default: Any = REQUIRED, details: Arg | None = None) -> Any:
    """A field of an `Args` model: its API default (REQUIRED: none) and how the adapters offer it."""
    info: FieldInfo = Field() if default is REQUIRED else Field(default=default)
    info.metadata.append(details or Arg())
    return info


class DeclaredArgs(BaseModel):
    """Arguments declared once, each field an `arg`: a protocol's `Args` and the run options. Built with
    `model_construct` from what a caller passed, never coerced: the protocol's builder (and `prepare`, for
    the run options) validates them, with the messages (and exit code 2) users know."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)


class RunArgs(DeclaredArgs):
    """How to run, not what to debate, declared once: every protocol's function takes these after its own
    arguments, and its command and tool the ones they offer, after their own; `prepare` applies them, the
    same way for every door. A field whose `Arg` says `sampling` is sent in every judge's request of the
    debate (`sampling`). A protocol that takes more names a subclass as its `Args`' `run`."""

    store: Store | None = arg(None, Arg(cli=False, mcp=False))
    on_event: Callable[..., None] | None = arg(None, Arg(cli=False, mcp=False))
    max_cost: float | None = arg(None, Arg(help="USD cap: no round starts whose worst case could cross it."))
    max_input_tokens: int | None = arg(
        None,
        Arg(
            help="Refuse an input (artifact, context) over this many tokens (default 1,000,000); "
            "the dry run warns near it."
        ),
    )
    author_model: str | None = arg(
        None, Arg(help="The model that wrote the artifact: a judge on it is flagged (author_on_panel).")
    )

    def sampling(self) -> dict[str, Any]:
        """The sampling options given (fields whose `Arg` says `sampling`), by their names, for every judge."""
        model = type(self)
        chosen = (n for n in model.model_fields if details(model, n).sampling)
        return {n: getattr(self, n) for n in chosen if getattr(self, n) is not None}


class ProtocolArgs(DeclaredArgs):
    """The base of every protocol's `Args`."""

    # the protocol's keys of a judges file, as one pydantic model (None: it reads none): declared beside its
    # arguments since both are what a user gives it; the kernel keeps the keys raw (`moot.file_blocks`)
    settings: ClassVar[type[BaseModel] | None] = None
    # the run options its function, command and tool take after its own
    run: ClassVar[type[RunArgs]] = RunArgs


class FlatArgs(ProtocolArgs):
    """The arguments of a protocol written against the flat spec (`moot.protocol.flat`), which declares no
    `Args`: what a call gave, by position (`given`) and by name, handed to its builder as they came."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True, extra="allow")

    given: tuple[Any, ...] = ()

    def named(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


A = TypeVar("A", bound=ProtocolArgs)
D = TypeVar("D", bound=DeclaredArgs)
R = TypeVar("R")

# how to run, not what to debate: every protocol function takes the run options after its own arguments,
# and an `Args` field named here (`redact_secrets`) stands among them
RUN_OPTIONS = (*RunArgs.model_fields, "redact_secrets")


def details(model: type[DeclaredArgs], name: str) -> Arg:
    """The `Arg` of one field (a plain one when the field has none)."""
    return next((m for m in model.model_fields[name].metadata if isinstance(m, Arg)), Arg())


def _default(info: FieldInfo) -> Any:
    return REQUIRED if info.is_required() else info.default


def params_of(model: type[DeclaredArgs], *, after: Mapping[str, Param] | None = None) -> tuple[Param, ...]:
    """The command's and the tool's parameters, in the fields' order, which is the function's too (one
    order for every face); `after` puts a shared one (`FORMAT`) after the named field."""
    params: list[Param] = []
    for name in model.model_fields:
        a = details(model, name)
        if a.cli or a.mcp:
            params.append(_param(name, model.model_fields[name], a))
        if after and name in after:
            params.append(after[name])
    return tuple(params)


def _param(name: str, info: FieldInfo, a: Arg) -> Param:
    type_ = info.annotation if a.type is None else a.type
    return Param(a.name or name, type_, _default(info) if a.default is SAME else a.default, **offer_of(a))


def adapt_to(model: type[DeclaredArgs], values: Mapping[str, Any]) -> dict[str, Any]:
    """The adapters' values (by their names) in the API's names: each field they offer, converted where its
    `Arg` says; the others keep the API's defaults."""
    out: dict[str, Any] = {}
    for name in model.model_fields:
        a = details(model, name)
        if a.api and (a.cli or a.mcp):
            value = values[a.name or name]
            out[name] = a.convert(value, values) if a.convert else value
    return out


def args_from(model: type[D], values: Mapping[str, Any]) -> D:
    """An `Args` from the API's names (a call, a batch item, the adapters' `adapt_to`); the fields not given
    take their defaults. Unknown names are refused as a Python call refuses them."""
    unknown = set(values) - set(model.model_fields)
    if unknown:
        raise TypeError(f"unexpected arguments: {sorted(unknown)}")
    missing = [n for n, i in model.model_fields.items() if i.is_required() and n not in values]
    if missing:
        raise TypeError(f"missing arguments: {missing}")
    defaults = {n: i.get_default(call_default_factory=True) for n, i in model.model_fields.items() if n not in values}
    return cast(D, model.model_construct(**defaults, **values))  # the pydantic plugin types it as the base


def _raw_annotations(model: type[DeclaredArgs]) -> dict[str, Any]:
    """The fields' annotations as written (the text, under `from __future__ import annotations`), so that the
    function shows them as the protocol's module spells them."""
    raw: dict[str, Any] = {}
    for cls in reversed(model.__mro__):
        raw.update(getattr(cls, "__annotations__", {}))
    return raw


def _api_parameters(model: type[DeclaredArgs]) -> list[inspect.Parameter]:
    """The fields the API takes, in their order (by position where their `Arg` says, else by keyword),
    annotated as the declaring module writes them."""
    raw = _raw_annotations(model)
    own: list[inspect.Parameter] = []
    for name, info in model.model_fields.items():
        a = details(model, name)
        if a.api:
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if a.positional else inspect.Parameter.KEYWORD_ONLY
            default = inspect.Parameter.empty if info.is_required() else info.default
            own.append(inspect.Parameter(name, kind, default=default, annotation=raw.get(name, info.annotation)))
    return own


def api_signature(model: type[ProtocolArgs], result: Any, taken: Collection[str] | None = None) -> inspect.Signature:
    """The public function's signature: the protocol's fields, then the run options it takes (`model.run`'s,
    those named in `taken` where given) standing where its `redact_secrets` field does (at the end without
    one)."""
    own = _api_parameters(model)
    runs = [p for p in _api_parameters(model.run) if taken is None or p.name in taken]
    cut = next((i for i, p in enumerate(own) if p.name in RUN_OPTIONS), len(own))
    return inspect.Signature([*own[:cut], *runs, *own[cut:]], return_annotation=result)


Build = Callable[[A, bool], Coroutine[Any, Any, Prepared]]
A_in = TypeVar("A_in", bound=ProtocolArgs, contravariant=True)


class Builds(Protocol[A_in]):
    """What `prepare` builds a debate with: a protocol's spec, or the declaration of its function."""

    @property
    def build(self) -> Build[A_in]: ...


async def prepare(
    spec: Builds[A], args: A, run: RunArgs, *, planning: bool = False, door: str = "max_cost"
) -> tuple[Prepared, RunOptions]:
    """A debate prepared from a protocol's `Args` and the run options, the one way the function, the
    command, the tool (dry run included), a batch and a bench prepare one: built (`planning=True` for a dry
    run: no key needed, no cap checked, the plan warns instead), told the model that wrote the artifact
    (`author_model`, else the judges file's), its run options from the judges file with the caller's store,
    progress and sampling options, then the caps checked (input, cost; `door` names the cost cap's option
    in a message), before anything is stored or sent."""
    prepared = with_author(await spec.build(args, planning), run.author_model)
    options = options_from_panel(prepared.panel, store=run.store, on_event=run.on_event)
    options.sampling = run.sampling() or None
    if options.sampling:  # beside the stored request: a resumed debate samples the same
        options.extra[STORED_SAMPLING_KEY] = options.sampling
    if not planning:
        check_input_cap(prepared, run.max_input_tokens)
        apply_max_cost(options, prepared.seats, run.max_cost, door)
    return prepared, options


@dataclass(frozen=True)
class ApiDeclaration:
    """What a protocol's public function was made from (`api_function`): its spec reads them there
    (`ProtocolSpec.of`), so that the name, `Args`, builder and result type are stated once."""

    name: str
    model: type[ProtocolArgs]
    build: Callable[..., Coroutine[Any, Any, Prepared]]
    result: type[Any]
    run: type[RunArgs] = RunArgs


def declaration(function: Callable[..., Any]) -> ApiDeclaration:
    """The declaration a function made by `api_function` carries."""
    found = getattr(function, "__declared__", None)
    if not isinstance(found, ApiDeclaration):
        raise TypeError(f"{getattr(function, '__name__', function)!r} was not made by api_function")
    return found


def api_function(
    name: str,
    model: type[A],
    build: Build[A],
    result: type[R],
    *,
    doc: str,
    run_options: tuple[str, ...] | None = None,
) -> Callable[..., Coroutine[Any, Any, R]]:
    """The protocol's public async function, generated from its `Args`: its arguments bound as the
    signature says (a wrong name or a missing one is Python's TypeError), split into the `Args` and the run
    options (all of its `run`'s, or those named in `run_options`), prepared by `build` and run."""
    signature = api_signature(model, result.__name__, run_options)
    declared = ApiDeclaration(name, model, build, result, model.run)

    async def function(*args: Any, **kwargs: Any) -> R:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        run = args_from(model.run, {k: given.pop(k) for k in list(given) if k in model.run.model_fields})
        try:
            prepared, options = await prepare(declared, args_from(model, given), run)
        except SecretFound as e:  # a caller in Python redacts with the argument, not the command line's flag
            raise e.worded("python") from None
        done: R = await run_prepared(prepared, options)
        return done

    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__annotations__ = _annotations(model, signature) | {"return": result}
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    function.__declared__ = declared  # type: ignore[attr-defined]
    function.__args_model__ = model  # type: ignore[attr-defined]
    return function


T = TypeVar("T")


def api_builder(name: str, model: type[A], body: Callable[[A], T]) -> Callable[..., T]:
    """A protocol's public builder (`build_evaluation_request`, ...), generated from its `Args` as its
    function is: the function's own arguments, without the run options, made an `Args` and handed to `body`,
    which validates them before any call. The builder and the function cannot then take different
    parameters, and the protocol's `_build` hands `body` the `Args` it was given, with no hop between."""
    full = api_signature(model, inspect.signature(body).return_annotation, ())
    signature = full.replace(parameters=[p for p in full.parameters.values() if p.name not in RUN_OPTIONS])

    def builder(*args: Any, **kwargs: Any) -> T:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return body(args_from(model, bound.arguments))

    builder.__signature__ = signature  # type: ignore[attr-defined]
    builder.__annotations__ = _annotations(model, signature) | {"return": signature.return_annotation}
    builder.__name__ = builder.__qualname__ = name
    builder.__module__ = body.__module__
    builder.__doc__ = body.__doc__
    builder.__args_model__ = model  # type: ignore[attr-defined]
    return builder


def generated_from(value: Any) -> type[ProtocolArgs] | None:
    """The `Args` a function was generated from (`api_function`, `api_builder`, or the sync twin of one,
    which carries its attributes), else None: what a stub writes out from its signature (`moot.api.stubs`)."""
    model = getattr(value, "__args_model__", None)
    return model if isinstance(model, type) and issubclass(model, ProtocolArgs) else None


def _annotations(model: type[ProtocolArgs], signature: inspect.Signature) -> dict[str, Any]:
    """The function's annotations as types (what `moot batch` checks an item's values against)."""
    fields = {n: i.annotation for m in (model.run, model) for n, i in m.model_fields.items()}
    return {p: fields[p] for p in signature.parameters}
