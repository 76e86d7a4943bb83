"""durable_journal.flink_agents.install() on Flink Agents 0.3.1's Python runtime.

Needs the flink-agents package and the modules its runtime imports
(scripts/setup installs them into build/pyenv; Gradle's pythonTest runs
pytest with that environment's python). Without them every test here skips.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import PACKAGE_PATH, flink_agents_runtime

fa_durable_execution, fa_runner_context = flink_agents_runtime()

import durable_journal
from durable_journal import flink_agents as dj_flink_agents

#: Flink Agents' own tests of the two functions install() replaces and of the
#: FlinkRunnerContext replay logic that calls them (its sdist ships them inside
#: the package); the other runtime tests never call the identity functions.
FLINK_AGENTS_IDENTITY_TESTS = ["test_durable_execution.py", "test_flink_runner_context_reconcilable.py"]

SEEDS = ["0", "1", "2"]


@pytest.fixture
def installed():
    dj_flink_agents.install()
    yield
    dj_flink_agents.uninstall()


def test_install_replaces_both_functions_in_both_modules_and_uninstall_restores_them():
    originals = {
        module: (module._compute_function_id, module._compute_args_digest)
        for module in (fa_durable_execution, fa_runner_context)
    }
    assert not dj_flink_agents.installed()
    dj_flink_agents.install()
    try:
        dj_flink_agents.install()  # idempotent: the originals saved the first time are kept
        assert dj_flink_agents.installed()
        for module in originals:
            assert module._compute_function_id is dj_flink_agents.scoped_function_id
            assert module._compute_args_digest is dj_flink_agents.scoped_args_digest
    finally:
        dj_flink_agents.uninstall()
    assert not dj_flink_agents.installed()
    for module, (function_id, args_digest) in originals.items():
        assert module._compute_function_id is function_id
        assert module._compute_args_digest is args_digest
    dj_flink_agents.uninstall()  # nothing to undo: no error


def test_the_digest_is_durable_journals_canonical_digest(installed):
    args, kwargs = ({"b", "a"}, [1, 2.5, None]), {"limit": 5}
    digest = fa_runner_context._compute_args_digest(args, kwargs)
    assert digest == durable_journal.compute_args_digest(args, kwargs)
    assert digest == fa_runner_context._compute_args_digest(({"a", "b"}, [1, 2.5, None]), {"limit": 5})
    assert len(digest) == 16 and int(digest, 16) >= 0


def search(query, limit=10):
    return query, limit


class Scorer:
    def __call__(self, text):
        return len(text)

    def score(self, text):
        return len(text)


def test_function_ids_name_the_function_that_runs(installed):
    import functools

    name = __name__
    function_id = fa_runner_context._compute_function_id
    assert function_id(search) == f"{name}.search"
    assert function_id(functools.partial(search, "weather")) == f"{name}.search"
    assert function_id(Scorer()) == f"{name}.Scorer.__call__"
    assert function_id(Scorer().score) == f"{name}.Scorer.score"
    # Flink Agents names a lambda by its qualname and matches calls by position: so do we.
    assert function_id(lambda: 1).startswith(f"{name}.test_function_ids_name_the_function_that_runs.<locals>.<lambda>")
    # A builtin method durable_journal cannot name keeps Flink Agents' name for it.
    assert function_id([].append) == fa_durable_execution._compute_function_id([].append)


def test_an_argument_without_canonical_form_is_a_type_error_before_the_call_runs(installed):
    ran = []

    def side_effect(value):
        ran.append(value)

    context = fa_runner_context.FlinkRunnerContext.__new__(fa_runner_context.FlinkRunnerContext)
    context._j_runner_context = None  # never reached: the identity fails first
    with pytest.raises(TypeError) as raised:
        context.durable_execute(side_effect, object())
    assert isinstance(raised.value, durable_journal.NonCanonicalArgumentError)
    message = str(raised.value)
    assert "args[0]" in message and "canonical" in message
    assert "durable_id=" not in message  # Flink Agents' durable_execute has no such parameter
    assert ran == []


def test_an_action_in_flight_at_the_switch_runs_its_calls_once_more_then_replays():
    """What docs/flink-agents.md ("Python agents") says of journals recorded before
    install(), on Flink Agents' FlinkRunnerContext over the in-memory Java context
    of Flink Agents' own test (imported from the installed package at run time)."""
    fake = pytest.importorskip(
        "flink_agents.runtime.tests.test_flink_runner_context_reconcilable",
        reason="Flink Agents' reconciler test module (its fake Java runner context) is not installed",
    )
    ran = []

    def look_up(name):
        ran.append(f"look_up {name}")
        return name.upper()

    def remember(tags):
        ran.append(f"remember {sorted(tags)}")

    java_context = fake._FakeJavaRunnerContext()

    def run_action():
        java_context.current_call_index = 0  # a new attempt of the same action
        context = fake._create_runner_context(java_context)
        try:
            return context.durable_execute(look_up, "ada"), context.durable_execute(remember, {"b", "a"})
        finally:
            fake._close_runner_context(context)

    assert run_action() == ("ADA", None)  # recorded with cloudpickle digests
    assert len(ran) == 2
    dj_flink_agents.install()
    try:
        assert run_action() == ("ADA", None)
        assert ran[2:] == ["look_up ada", "remember ['a', 'b']"], "the first call missed: every call ran once more"
        assert [call.args_digest for call in java_context.call_results] == [
            durable_journal.compute_args_digest(("ada",), {}),
            durable_journal.compute_args_digest(({"a", "b"},), {}),
        ]
        assert run_action() == ("ADA", None)
        assert len(ran) == 4, "recorded with the new ids: replayed"
    finally:
        dj_flink_agents.uninstall()


def test_flink_agents_own_durable_execution_tests_pass_with_install(tmp_path):
    """Runs the tests of Flink Agents' installed package in a fresh
    interpreter that calls install() before pytest imports them (they import
    the two functions by name)."""
    tests_dir = Path(fa_durable_execution.__file__).parent / "tests"
    paths = [str(tests_dir / name) for name in FLINK_AGENTS_IDENTITY_TESTS]
    for path in paths:
        assert Path(path).is_file(), f"{path}: not in the installed flink-agents package"
    runner = textwrap.dedent(
        """
        import sys
        import pytest
        from durable_journal import flink_agents
        import flink_agents.runtime.durable_execution as de

        flink_agents.install()
        assert de._compute_args_digest is flink_agents.scoped_args_digest
        sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(PACKAGE_PATH))
    done = subprocess.run(
        [sys.executable, "-c", runner, *paths], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout


PROBE = textwrap.dedent(
    """
    import dataclasses, json, sys
    import flink_agents.runtime.durable_execution as de
    from durable_journal import flink_agents

    @dataclasses.dataclass
    class Query:  # defined in __main__: cloudpickle pickles the class by value
        text: str
        limit: int

    def lookup(query):
        return query

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
    samples = {"set_of_strings": ((set(words),), {}), "main_class": ((Query("weather", 5),), {})}
    flink_agents_digest = de._compute_args_digest
    result = {"cloudpickle": {name: flink_agents_digest(*call) for name, call in samples.items()}}
    flink_agents.install()
    result["installed"] = {name: de._compute_args_digest(*call) for name, call in samples.items()}
    result["function_id"] = de._compute_function_id(lookup)
    json.dump(result, sys.stdout)
    """
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("flink_agents_cross_process")
    outputs = {}
    for seed in SEEDS:
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(PACKAGE_PATH))
        done = subprocess.run(
            [sys.executable, "-c", PROBE], env=env, cwd=directory, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs[seed] = json.loads(done.stdout)
    return outputs


@pytest.mark.parametrize("sample", ["set_of_strings", "main_class"])
def test_cloudpickle_digests_differ_between_processes_and_installed_digests_do_not(runs, sample):
    cloudpickle_digests = {runs[seed]["cloudpickle"][sample] for seed in SEEDS}
    installed_digests = {runs[seed]["installed"][sample] for seed in SEEDS}
    # Flink Agents' own digest: a new process misses its recorded call.
    assert len(cloudpickle_digests) > 1, cloudpickle_digests
    assert len(installed_digests) == 1, installed_digests


def test_function_ids_are_the_same_in_every_process(runs):
    assert {runs[seed]["function_id"] for seed in SEEDS} == {"__main__.lookup"}


def test_each_supported_version_has_its_modules_and_another_gets_its_nearest():
    import importlib.metadata

    installed_version = importlib.metadata.version("flink-agents")
    assert installed_version in dj_flink_agents.PATCHES, "the environment's Flink Agents is a supported version"
    assert dj_flink_agents.patched_modules() == dj_flink_agents.PATCHES[installed_version]
    assert dj_flink_agents.patched_modules("0.3.2") == dj_flink_agents.PATCHES["0.3.1"]
    assert dj_flink_agents.patched_modules("0.4.0") == dj_flink_agents.PATCHES["0.4.dev0+main.8ad3a32b"]
    assert dj_flink_agents.patched_modules("0.5.0") == dj_flink_agents.PATCHES["0.4.dev0+main.8ad3a32b"]
    assert dj_flink_agents.patched_modules("0.2.0") == dj_flink_agents.PATCHES["0.3.1"]


def test_install_refuses_a_flink_agents_whose_module_lacks_a_function_and_changes_nothing(monkeypatch):
    monkeypatch.delattr(fa_runner_context, "_compute_args_digest")
    with pytest.raises(ImportError, match="flink_runner_context has no _compute_args_digest"):
        dj_flink_agents.install()
    assert not dj_flink_agents.installed()
    assert fa_durable_execution._compute_args_digest is not dj_flink_agents.args_digest
