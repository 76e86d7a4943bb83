"""install() is scoped to the agent that calls it: one embedded interpreter
(pemja) serves every job of a TaskManager, so two agents' modules share it,
and only the one that called install() gets durable_journal's identity.

Runs over the real flink-agents package (scripts/setup installs it into
build/pyenv) with Flink Agents' own FlinkRunnerContext and the in-memory Java
runner context of its tests; skips without them.
"""

import asyncio
import importlib
import sys
import textwrap

import pytest

from conftest import flink_agents_runtime

fa_durable_execution, fa_runner_context = flink_agents_runtime()
fake = pytest.importorskip(
    "flink_agents.runtime.tests.test_flink_runner_context_reconcilable",
    reason="Flink Agents' reconciler test module (its fake Java runner context) is not installed",
)

import durable_journal
from durable_journal import flink_agents as dj_flink_agents

#: An agent module as a user writes one: an action making a durable call
#: (sync and async) whose arguments' cloudpickle digest differs from the
#: canonical one. ``{install}`` is the line that calls install(), or nothing.
AGENT = textwrap.dedent(
    """
    from durable_journal import flink_agents
    {install}

    def tags(values, limit):
        return sorted(values)[:limit]

    def action(ctx):
        return ctx.durable_execute(tags, {{"b", "a"}}, limit=3)

    async def async_action(ctx):
        return await ctx.durable_execute_async(tags, {{"d", "c"}}, limit=4)
    """
)


@pytest.fixture
def agents(tmp_path, monkeypatch):
    """Two agent modules of two jobs in this interpreter: the first calls
    install() at import (it is imported first, as the earlier job's), the
    second does not."""
    (tmp_path / "job_a_agent.py").write_text(AGENT.format(install="flink_agents.install()"))
    (tmp_path / "job_b_agent.py").write_text(AGENT.format(install=""))
    monkeypatch.syspath_prepend(str(tmp_path))
    job_a = importlib.import_module("job_a_agent")
    job_b = importlib.import_module("job_b_agent")
    yield job_a, job_b
    dj_flink_agents.uninstall("job_a_agent")
    for name in ("job_a_agent", "job_b_agent"):
        sys.modules.pop(name, None)
    assert not dj_flink_agents.installed(), "no scope left: Flink Agents' functions are back"


def recorded_digests(action):
    """Runs ``action`` once on a fresh Flink Agents runner context and
    returns the args digests its durable calls were recorded with."""
    java_context = fake._FakeJavaRunnerContext()
    context = fake._create_runner_context(java_context)
    try:
        result = action(context)
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    finally:
        fake._close_runner_context(context)
    return [call.args_digest for call in java_context.call_results]


def flink_agents_digest(args, kwargs):
    return dj_flink_agents._original("_compute_args_digest")(args, kwargs)


def test_only_the_agent_that_installed_gets_the_canonical_identity(agents):
    job_a, job_b = agents
    assert dj_flink_agents.scopes() == frozenset({"job_a_agent"})
    assert fa_runner_context._compute_args_digest is dj_flink_agents.scoped_args_digest

    assert recorded_digests(job_a.action) == [durable_journal.compute_args_digest(({"a", "b"},), {"limit": 3})]
    # The job whose agent never called install(), run after the one that did, keeps Flink Agents' digest.
    # (The set is built as the agent builds it: cloudpickle's bytes follow the set's iteration
    # order, which for the same elements inserted in another order can differ under a hash seed.)
    assert recorded_digests(job_b.action) == [flink_agents_digest(({"b", "a"},), {"limit": 3})]
    assert flink_agents_digest(({"b", "a"},), {"limit": 3}) != durable_journal.compute_args_digest(
        ({"a", "b"},), {"limit": 3}
    )
    # The async path records on await, on the action's thread: the same rule.
    assert recorded_digests(job_a.async_action) == [durable_journal.compute_args_digest(({"c", "d"},), {"limit": 4})]
    assert recorded_digests(job_b.async_action) == [flink_agents_digest(({"d", "c"},), {"limit": 4})]


def test_function_ids_follow_the_same_scope(agents):
    job_a, job_b = agents
    # Called from this test module (no scope): Flink Agents' own name; from job A's action: ours.
    assert fa_durable_execution._compute_function_id(job_a.tags) == dj_flink_agents._original("_compute_function_id")(
        job_a.tags
    )
    java_context = fake._FakeJavaRunnerContext()
    context = fake._create_runner_context(java_context)
    try:
        job_a.action(context)
    finally:
        fake._close_runner_context(context)
    assert [call.function_id for call in java_context.call_results] == [dj_flink_agents.function_id(job_a.tags)]


def test_uninstall_elsewhere_leaves_a_running_agents_identity_alone(agents):
    job_a, job_b = agents
    dj_flink_agents.install()  # this test module, as a second job's agent would
    assert dj_flink_agents.scopes() == frozenset({"job_a_agent", __name__})
    dj_flink_agents.uninstall()  # ends this module's scope only
    assert dj_flink_agents.scopes() == frozenset({"job_a_agent"})
    assert recorded_digests(job_a.action) == [durable_journal.compute_args_digest(({"a", "b"},), {"limit": 3})]
    assert recorded_digests(job_b.action) == [flink_agents_digest(({"b", "a"},), {"limit": 3})]


def test_a_package_scope_covers_its_modules(agents):
    job_a, job_b = agents
    dj_flink_agents.install("job_b_agent")  # a package name: the module itself and any below it
    try:
        assert recorded_digests(job_b.action) == [durable_journal.compute_args_digest(({"a", "b"},), {"limit": 3})]
    finally:
        dj_flink_agents.uninstall("job_b_agent")
    assert recorded_digests(job_b.action) == [flink_agents_digest(({"b", "a"},), {"limit": 3})]
