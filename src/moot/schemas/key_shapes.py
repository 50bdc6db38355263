"""The shapes of the credentials moot knows by sight: one table for the secret screen and for error redaction.

detect-secrets (`moot.secrets`) is the maintained rule set and covers most token formats (AWS, GitHub's
classic tokens, Slack, Stripe, private keys, OpenAI's legacy keys...). Its release has no rule for several
vendors moot itself calls, nor for a few common tokens, so moot keeps their shapes here, once:

- the secret screen refuses or redacts them in everything a debate would send (`screened` shapes);
- error messages (a vendor's error that echoes a request, a message quoting an argument) redact every shape
  here, `screened` or not: the looser ones (`sk-` and a few characters, a bearer token, `?key=`) would refuse
  ordinary prose as input, but in an error message nothing is lost by hiding them.

A shape's `keep` group, when it has one, is the part of the match left in place (the header's name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class KeyShape:
    """One credential's shape: `kind` (a slug, as in `[REDACTED:<kind>]`), `detector` (its name in words, as a
    refusal names it) and `pattern`; `screened` False: only redacted in error messages, never refused."""

    kind: str
    detector: str
    pattern: re.Pattern[str]
    screened: bool = True


def _shape(kind: str, detector: str, pattern: str, *, screened: bool = True) -> KeyShape:
    return KeyShape(kind, detector, re.compile(pattern), screened)


KEY_SHAPES: tuple[KeyShape, ...] = (
    _shape("anthropic-api-key", "Anthropic API Key", r"\bsk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{32,}"),
    _shape("openai-api-key", "OpenAI API Key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
    _shape("openrouter-api-key", "OpenRouter API Key", r"\bsk-or-v\d-[A-Za-z0-9]{32,}"),
    _shape("xai-api-key", "xAI API Key", r"\bxai-[A-Za-z0-9]{32,}"),
    _shape("google-api-key", "Google API Key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _shape("hugging-face-token", "Hugging Face Token", r"\bhf_[A-Za-z0-9]{30,}"),
    _shape("github-fine-grained-token", "GitHub Fine-Grained Token", r"\bgithub_pat_[A-Za-z0-9_]{40,}"),
    _shape("gitlab-token", "GitLab Token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    # looser: in an error message only (an `sk-` word or an `AIza` prefix in a sentence is no key to refuse)
    _shape("vendor-key", "vendor key", r"\b(?P<keep>(?:sk|xai)-)[A-Za-z0-9_\-]{8,}", screened=False),
    _shape("google-api-key", "Google API Key", r"\bAIza[0-9A-Za-z_\-]{20,}", screened=False),
    _shape("bearer", "bearer token", r"(?i)\b(?P<keep>(?:bearer|basic)\s+)[^\s\"',;}\]]+", screened=False),
    _shape(
        "query-key",
        "key in a URL",
        r"(?i)(?P<keep>[?&](?:key|api_key|api-key|access_token)=)[^&\s\"']+",
        screened=False,
    ),
    _shape(
        "key-header",
        "key header",
        r"(?i)(?P<keep>(?:x-api-key|x-goog-api-key|api-key|api_key|authorization)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',}]+",
        screened=False,
    ),
)
SCREENED: tuple[KeyShape, ...] = tuple(s for s in KEY_SHAPES if s.screened)


def redact_shapes(text: str, mark: str) -> str:
    """`text` with every shape in the table replaced by `mark` (a `keep` group stays in front of it)."""
    for shape in KEY_SHAPES:
        if "keep" in shape.pattern.groupindex:
            text = shape.pattern.sub(lambda m: m.group("keep") + mark, text)
        else:
            text = shape.pattern.sub(mark, text)
    return text


_TEMPLATE_SUFFIXES = (".example", ".sample", ".template", ".dist")
_DOCKER_AUTH = re.compile(r'"(?:auth|identitytoken|registrytoken)"\s*:\s*"[^"]{8,}"')


def credential_file_kind(path: str, text: str = "") -> str | None:
    """The kind of credential file `path` names (`private-key-file`, `env-file`, ...), or None. Some names
    count only with a credential in `text`: `.npmrc` and `.pypirc` with a token or password, a Docker
    `config.json` with a registry's `auth` (most such files hold settings alone)."""
    p = PurePosixPath(path.replace("\\", "/"))
    name, parts = p.name.lower(), [s.lower() for s in p.parts]
    if name.startswith(("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")):
        return "ssh-private-key-file"
    if p.suffix.lower() in (".pem", ".key", ".p12", ".pfx"):
        return "private-key-file"
    if (name.startswith(".env") or name.endswith(".env")) and not name.endswith(_TEMPLATE_SUFFIXES):
        return "env-file"  # .env, .env.production, prod.env, settings.env
    if name in (".netrc", "_netrc"):
        return "netrc-file"
    if name in (".pgpass", "pgpass.conf"):
        return "pgpass-file"
    return _named_file_kind(name, parts) or _holding_file_kind(name, text)


def _named_file_kind(name: str, parts: list[str]) -> str | None:
    if name in ("credentials.json", "application_default_credentials.json"):
        return "cloud-credentials-file"
    if (".aws" in parts and name == "credentials") or ".azure" in parts or "gcloud" in parts:
        return "cloud-credentials-file"
    if name == "kubeconfig" or name.endswith(".kubeconfig") or (".kube" in parts and name == "config"):
        return "kubeconfig-file"
    return None


def _holding_file_kind(name: str, text: str) -> str | None:
    """The kinds known by name and content together."""
    if name in (".npmrc", "npmrc") and re.search(r"(?i)_authToken|_auth\s*=|_password", text):
        return "npm-token-file"
    if name in (".pypirc", "pypirc") and re.search(r"(?im)^[\s\d+-]*password\s*[=:]", text):
        return "pypi-password-file"
    if name == "config.json" and '"auths"' in text and _DOCKER_AUTH.search(text):
        return "docker-config-file"
    return None


# names whose kind depends on their content: a folder walk reads them to decide (`moot.inputs`)
NAMES_KNOWN_BY_CONTENT = frozenset({".npmrc", "npmrc", ".pypirc", "pypirc", "config.json"})
