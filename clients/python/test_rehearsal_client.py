"""Scenario tests of rehearsal_client against a running `rehearsal serve` (run from vitest:
test/serve/python-client.test.ts starts the server and runs `python3 test_rehearsal_client.py SCENARIO URL`).
Each scenario asserts what it checks and prints one JSON line with what the caller verifies further."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time

from rehearsal_client import EnvironmentFailure, HttpSession, ServeError, WsSession

# The solving path of FrozenLake 4x4 (not slippery): S at (0, 0), G at (3, 3).
PATH = ["down", "down", "right", "right", "down", "right"]


def move(direction: str) -> dict:
    return {"type": "move", "direction": direction}


def emit(value: dict) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def frozenlake(url: str) -> None:
    with HttpSession(url) as env:
        assert env.health()["status"] == "healthy"
        assert "action" in env.schema()
        first = env.reset(seed=7)
        assert first.done is False and first.reward is None
        assert "P" in first.observation["text"]
        result = first
        for d in PATH:
            result = env.step(move(d))
        assert result.done and result.reward == 1, result
        assert result.observation["done"] is True
        assert result.outcome["success"] is True and result.outcome["reason"], result.outcome
        assert result.metadata["step_count"] == len(PATH)
        http_session = env.session_id
    try:
        with HttpSession(url) as again:
            again.session_id = http_session
            again.step(move("up"))
        raise AssertionError("a closed session answered")
    except ServeError as e:
        assert e.code == "serve.unknown_session", e.code

    async def over_ws() -> dict:
        async with WsSession(url) as env:
            await env.reset(seed=7)
            result = None
            for d in PATH:
                result = await env.step(move(d))
            assert result.done and result.outcome["success"]
            try:
                await env.step({"type": "teleport"})
                raise AssertionError("an invalid action was accepted")
            except ServeError as e:
                assert e.code == "serve.invalid_action" and not isinstance(e, EnvironmentFailure)
            return result.metadata

    meta = asyncio.run(over_ws())
    emit({"http_session": http_session, "ws_session": meta["session_id"], "steps": len(PATH)})


def web(url: str) -> None:
    async def play() -> dict:
        async with WsSession(url) as env:
            result = await env.reset(task_id="click-button", seed=3)
            obs = result.observation
            label = re.search(r'"([^"]+)" button', obs["instruction"]).group(1)
            element = re.search(r'\[(\d+)\] button "' + re.escape(label) + '"', obs["axtree"]).group(1)
            result = await env.step({"type": "click", "elementId": element})
            steps = 1
            while not result.done and steps < 5:
                result = await env.step({"type": "done"})
                steps += 1
            assert result.done, result.metadata
            assert result.outcome["success"] is True, result.outcome
            return {"session": result.metadata["session_id"], "steps": steps, "reason": result.outcome["reason"]}

    emit(asyncio.run(play()))


def group(url: str) -> None:
    """A GRPO-style group: 8 sessions of the same task and seed, played concurrently."""

    async def member(i: int) -> dict:
        async with WsSession(url) as env:
            await env.reset(seed=11, episode_id=f"group-{i}")
            directions = ["left", "down", "right", "up"]
            result = None
            steps = 0
            for k in range(20):
                result = await env.step(move(directions[(i + k * (i + 1)) % 4]))
                steps += 1
                if result.done:
                    break
            return {"session": result.metadata["session_id"], "episode": result.metadata["episode_id"], "steps": steps, "done": result.done}

    async def run() -> list:
        return await asyncio.gather(*(member(i) for i in range(8)))

    members = asyncio.run(run())
    assert len({m["session"] for m in members}) == 8
    emit({"members": members})


def snapshot(url: str) -> None:
    async def ws() -> dict:
        async with WsSession(url) as env:
            await env.reset(seed=5)
            await env.step(move("down"))
            saved = await env.snapshot()
            before = await env.fingerprint()
            await env.step(move("down"))
            await env.step(move("right"))
            assert await env.fingerprint() != before
            restored = await env.restore(saved)
            assert await env.fingerprint() == before
            assert restored.metadata["step_count"] == 1
            # The restored state plays on: the rest of the solving path reaches the goal.
            result = None
            for d in PATH[1:]:
                result = await env.step(move(d))
            assert result.done and result.outcome["success"], result
            return {"fingerprint": before}

    out = asyncio.run(ws())
    with HttpSession(url) as env:
        env.reset(seed=5)
        env.step(move("down"))
        saved = env.snapshot()
        assert env.fingerprint() == out["fingerprint"]
        env.step(move("right"))
        env.restore(saved)
        assert env.fingerprint() == out["fingerprint"]
    emit(out)


def hang(url: str) -> None:
    """Opens a session, plays a step, then hangs (the caller kills the process)."""
    env = HttpSession(url)
    env.reset(seed=1)
    env.step(move("right"))
    emit({"session": env.session_id})
    time.sleep(3600)


SCENARIOS = {"frozenlake": frozenlake, "web": web, "group": group, "snapshot": snapshot, "hang": hang}

if __name__ == "__main__":
    SCENARIOS[sys.argv[1]](sys.argv[2])
