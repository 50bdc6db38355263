"""Test helpers that ship with moot, for its own suite and for users' tests of their own panels:
a local HTTP server speaking vendors' wire protocols with scripted replies, delays and errors; and a real
model (SmolLM2-135M) behind llama-cpp-python's server (`moot.testing.local_server.llama_server`)."""

from moot.testing.fake_llm_server import FakeLLMServer, Reply

__all__ = ["FakeLLMServer", "Reply"]
