"""The agent PythonReplayJobTest records and replays: per request one action,
``answer`` (a coroutine), that looks a profile up (an asynchronous durable
call), asks a model, forgets a draft (a call with a reconciler that returns
None) and charges a quota (a call that raises the agent's own exception,
which the action catches); each call's body logs a line to the request's
side-effect log. It counts the requests of its key in short-term memory and
sends one output. The candidates of ``replay_candidates`` change it in each
way of docs/replay.md."""

import functools
import json

from durable_journal import flink_agents as durable_journal_flink_agents
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

durable_journal_flink_agents.install()

PROMPT = "Answer {name} kindly, knowing {profile}."


class QuotaExceeded(Exception):
    """The agent's own failure: a replay raises it again from the recording."""


def side_effect(log, line):
    """A call's side effect: a line in the request's log (the test counts them)."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def look_up(log, name):
    side_effect(log, f"look_up {name}")
    return f"profile of {name}"


def ask_model(log, prompt):
    side_effect(log, f"ask_model {prompt}")
    return f"model: {prompt}"


def forget(log, name):
    side_effect(log, f"forget {name}")
    return None


def charge(log, name):
    side_effect(log, f"charge {name}")
    raise QuotaExceeded(f"no quota left for {name}")


def request_of(event: Event) -> tuple:
    """The request's side-effect log and name."""
    request = json.loads(InputEvent.from_event(event).input)
    return request["log"], request["name"]


def durable(ctx: RunnerContext, function, log, *args, **kwargs):
    """A durable call of ``function`` with the log bound (functools.partial), not an argument:
    a call's args digest is over its own arguments, so the recorded ids do not depend on the
    test's temporary directory."""
    return ctx.durable_execute(functools.partial(function, log), *args, **kwargs)


def settle(ctx: RunnerContext, log, name) -> dict:
    """The calls after the model's: one that returns None (with a reconciler), one that raises."""
    forgotten = durable(ctx, forget, log, name, reconciler=lambda: None)
    try:
        durable(ctx, charge, log, name)
        failure = None
    except QuotaExceeded as e:
        failure = f"{type(e).__name__}: {e}"
    return {"forgotten": forgotten, "failure": failure}


def count_request(ctx: RunnerContext) -> int:
    """The requests of this key so far, this one included (short-term memory)."""
    count = (ctx.short_term_memory.get("requests") or 0) + 1
    ctx.short_term_memory.set("requests", count)
    return count


def send_answer(ctx: RunnerContext, name, reply, settled, **more) -> None:
    ctx.send_event(OutputEvent(output={"name": name, "reply": reply, **settled, "requests": count_request(ctx), **more}))


class ReplayAgent(Agent):
    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    async def answer(event: Event, ctx: RunnerContext) -> None:
        log, name = request_of(event)
        profile = await ctx.durable_execute_async(functools.partial(look_up, log), name)
        reply = durable(ctx, ask_model, log, PROMPT.format(name=name, profile=profile))
        send_answer(ctx, name, reply, settle(ctx, log, name))
