"""A small client for `rehearsal serve` (OpenEnv-compatible wire format).

Two ways to talk to the server, with the same methods:

* ``HttpSession`` (blocking, ``requests``): ``reset``, ``step``, ``state``, ``snapshot``, ``restore``,
  ``fingerprint``, ``close``.
* ``WsSession`` (``asyncio``, ``websockets``): one WebSocket connection is one session; the same methods
  are coroutines. Run many at once with ``asyncio.gather`` (a GRPO group).

Every answer to ``reset``/``step``/``restore`` is a ``StepResult``: ``observation`` (a dict: ``text``,
``axtree``, ``legalActions``, ... plus ``done``, ``reward``, ``metadata``), ``reward``, ``done`` and
``metadata`` (``session_id``, ``episode_id``, ``step_count``, ``terminated``, ``truncated``, ``info``, and
at the end of an episode ``outcome``: the verifier's ``success``, ``reward`` and ``reason``).

Errors come back as ``ServeError`` (``code``, ``category``, ``message``); an infrastructure failure of
the environment is an ``EnvironmentFailure`` (never a reward). Dependencies: requests, websockets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Optional

import requests

__all__ = ["ServeError", "EnvironmentFailure", "StepResult", "HttpSession", "WsSession"]


class ServeError(Exception):
    """A typed error the server answered with."""

    def __init__(self, body: Dict[str, Any], status: Optional[int] = None):
        self.code: str = str(body.get("code", "serve.unknown"))
        self.category: str = str(body.get("category", "internal"))
        self.infra: bool = bool(body.get("infra", False))
        self.status = status
        self.body = body
        super().__init__(f"[{self.code}] {body.get('message', '')}")


class EnvironmentFailure(ServeError):
    """The environment's infrastructure failed (browser crash, dead engine): the episode has no reward."""


def _error(body: Dict[str, Any], status: Optional[int] = None) -> ServeError:
    return EnvironmentFailure(body, status) if body.get("infra") else ServeError(body, status)


@dataclass
class StepResult:
    observation: Dict[str, Any]
    reward: Optional[float]
    done: bool
    metadata: Dict[str, Any]

    @classmethod
    def from_payload(cls, payload: Dict[str, Any]) -> "StepResult":
        return cls(
            observation=payload["observation"],
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
            metadata=payload.get("metadata") or {},
        )

    @property
    def outcome(self) -> Optional[Dict[str, Any]]:
        """The verifier's verdict (success, reward, reason) once the episode ended."""
        return self.metadata.get("outcome")


def _auth(token: Optional[str]) -> Dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class HttpSession:
    """One session over HTTP: the first ``reset`` opens it, ``close`` ends it."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 120.0):
        self.base_url = base_url.rstrip("/")
        self.session_id: Optional[str] = None
        self._http = requests.Session()
        self._http.headers.update(_auth(token))
        self._timeout = timeout

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        res = self._http.request(method, self.base_url + path, json=body, timeout=self._timeout)
        data = res.json()
        if res.status_code >= 400:
            raise _error(data.get("error", {}), res.status_code)
        return data

    def _with_session(self, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        if self.session_id is None:
            raise ServeError({"code": "client.not_reset", "category": "user", "message": "call reset() first"})
        return {**(body or {}), "session_id": self.session_id}

    def health(self) -> Dict[str, Any]:
        return self._call("GET", "/health")

    def metadata(self) -> Dict[str, Any]:
        return self._call("GET", "/metadata")

    def schema(self) -> Dict[str, Any]:
        return self._call("GET", "/schema")

    def reset(self, **params: Any) -> StepResult:
        body = dict(params)
        if self.session_id is not None:
            body["session_id"] = self.session_id
        result = StepResult.from_payload(self._call("POST", "/reset", body))
        self.session_id = result.metadata["session_id"]
        return result

    def step(self, action: Dict[str, Any]) -> StepResult:
        return StepResult.from_payload(self._call("POST", "/step", self._with_session({"action": action})))

    def state(self) -> Dict[str, Any]:
        return self._call("POST", "/state", self._with_session())

    def snapshot(self) -> Dict[str, Any]:
        return self._call("POST", "/snapshot", self._with_session())["snapshot"]

    def restore(self, snapshot: Dict[str, Any]) -> StepResult:
        return StepResult.from_payload(self._call("POST", "/restore", self._with_session({"snapshot": snapshot})))

    def fingerprint(self) -> str:
        return self._call("POST", "/fingerprint", self._with_session())["fingerprint"]

    def close(self) -> None:
        if self.session_id is not None:
            try:
                self._call("POST", "/close", self._with_session())
            finally:
                self.session_id = None
        self._http.close()

    def __enter__(self) -> "HttpSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class WsSession:
    """One session over a WebSocket (``async with WsSession(url) as env: await env.reset()``)."""

    def __init__(self, base_url: str, token: Optional[str] = None, max_size: int = 16 * 1024 * 1024):
        self.url = base_url.rstrip("/").replace("http", "ws", 1) + "/ws"
        self._token = token
        self._max_size = max_size
        self._socket: Any = None

    async def connect(self) -> "WsSession":
        import websockets

        headers = _auth(self._token)
        major = int(str(getattr(websockets, "__version__", "10")).split(".")[0])
        key = "additional_headers" if major >= 14 else "extra_headers"
        self._socket = await websockets.connect(self.url, max_size=self._max_size, **{key: headers})
        return self

    async def _request(self, message: Dict[str, Any]) -> Dict[str, Any]:
        await self._socket.send(json.dumps(message))
        frame = json.loads(await self._socket.recv())
        if frame.get("type") == "error":
            raise _error(frame.get("data", {}))
        return frame

    async def reset(self, **params: Any) -> StepResult:
        return StepResult.from_payload((await self._request({"type": "reset", "data": params}))["data"])

    async def step(self, action: Dict[str, Any]) -> StepResult:
        return StepResult.from_payload((await self._request({"type": "step", "data": action}))["data"])

    async def state(self) -> Dict[str, Any]:
        return (await self._request({"type": "state"}))["data"]

    async def snapshot(self) -> Dict[str, Any]:
        return (await self._request({"type": "snapshot"}))["data"]["snapshot"]

    async def restore(self, snapshot: Dict[str, Any]) -> StepResult:
        frame = await self._request({"type": "restore", "data": {"snapshot": snapshot}})
        return StepResult.from_payload(frame["data"])

    async def fingerprint(self) -> str:
        return (await self._request({"type": "fingerprint"}))["data"]["fingerprint"]

    async def close(self) -> None:
        if self._socket is None:
            return
        try:
            await self._request({"type": "close"})
        except Exception:
            pass
        await self._socket.close()
        self._socket = None

    async def __aenter__(self) -> "WsSession":
        return await self.connect()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
