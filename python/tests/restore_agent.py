"""The candidate agent of test_plan_restore.py: one
action, ``act``, on the input event, that looks the input up and asks a
model about it (two durable calls), then sends the answer. A replay never
runs a call's body: each raises. A production agent's module calls
``durable_journal.flink_agents.install()``; the test installs this module's
scope around each test instead, so other test modules see no scope left
behind."""

from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext


def look_up(name):
    raise AssertionError(f"a replay ran look_up({name!r})")


def ask_model(prompt):
    raise AssertionError(f"a replay ran ask_model({prompt!r})")


class RestoreAgent(Agent):
    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def act(event: Event, ctx: RunnerContext) -> None:
        name = InputEvent.from_event(event).input
        profile = ctx.durable_execute(look_up, name)
        ctx.send_event(OutputEvent(output=ctx.durable_execute(ask_model, f"{name}: {profile}")))
