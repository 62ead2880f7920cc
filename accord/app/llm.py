"""An OpenAI-compatible chat endpoint as the LLM agent's `Model` (spec/agents.md, LLM agent):
the one place a model is called. Everything it answers goes through the guard; a failure here
(unreachable, slow, malformed) leaves the decision to the rules."""

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import httpx

from accord.agents.llm import ToolCall
from accord.app.settings import Settings

TIMEOUT: Final = 30.0


class ChatModel:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._model = model
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )

    def __call__(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> ToolCall | None:
        response = self._client.post(
            "/chat/completions",
            json={
                "model": self._model,
                "messages": list(messages),
                "tools": list(tools),
                "tool_choice": "required",
                "temperature": 0,
            },
        )
        response.raise_for_status()
        return tool_call(response.json())

    def close(self) -> None:
        self._client.close()


def tool_call(body: Any) -> ToolCall | None:
    """The first tool call of a chat completion, or None when there is none or it is not one
    a strict reader accepts (arguments are a JSON object)."""
    try:
        call = body["choices"][0]["message"]["tool_calls"][0]["function"]
        arguments = json.loads(call["arguments"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not isinstance(call.get("name"), str) or not isinstance(arguments, dict):
        return None
    return ToolCall(call["name"], arguments)


def chat_model(settings: Settings) -> ChatModel | None:
    """The configured model, or None: without one the agents decide by rules."""
    if not settings.llm_base_url or not settings.llm_model:
        return None
    return ChatModel(settings.llm_base_url, settings.llm_model, settings.llm_api_key)
