"""One TLS context for every vendor SDK client.

Making a context loads the CA bundle (~50 ms of blocking work); a panel of nine judges would pay that
nine times before its first round. An `ssl.SSLContext` holds no connection state, so sharing it between
clients and event loops is safe.
"""

from __future__ import annotations

import os
import ssl
from functools import lru_cache


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """One TLS context for every SDK client: `SSL_CERT_FILE` if set, else certifi's bundle, else the system's.
    (An `ssl.SSLContext` holds no connection state and is safe to share between clients and event loops.)"""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:
            cafile = None
    return ssl.create_default_context(cafile=cafile)
