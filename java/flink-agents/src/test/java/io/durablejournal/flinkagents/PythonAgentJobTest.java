package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Python agent ({@code src/test/python/durable_calls_agent.py}, planned by Flink Agents'
 * Python API) on Flink Agents 0.3.1's own operator, wired by {@link DurableAgents#connectToAgent}:
 * the operator runs the action (a coroutine) in CPython embedded through pemja. It awaits an
 * asynchronous durable call first, so its later calls run in its continuation. Its first run
 * of the first request crashes the task inside its fifth durable call; after the failover the action runs again over its journal in
 * the store, and no durable call's side effect runs twice: the call that succeeded, the one that
 * returned {@code None} and the one that raised the agent's own exception class replay from the
 * journal (and the awaited one), the pending one is settled by its reconciler.
 */
class PythonAgentJobTest {
    private static final List<String> REQUESTS = List.of("alpha", "bravo");

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(1);

    @TempDir
    Path tmp;

    @BeforeAll
    static void pythonEnvironment() {
        PythonAgents.assumeEnvironment();
    }

    @Test
    @LongJobTimeout
    void durableCallsOfAPythonActionReplayAfterAFailoverWithoutRunningAgain() throws Exception {
        Path log = tmp.resolve("side-effects.log");
        Path crashMarker = tmp.resolve("crashed");
        AgentPlan plan = PythonAgents.plan("durable_calls_agent", "DurableCallsAgent");

        // No checkpoint: the restart reads the input again, and each action runs over the
        // journal its first attempt left in the store.
        StreamExecutionEnvironment env = PythonAgents.restartingEnvironment(2);

        ObjectMapper json = new ObjectMapper();
        List<String> inputs = new ArrayList<>();
        String crashed = REQUESTS.get(0);
        for (String name : REQUESTS) {
            Map<String, String> input = new TreeMap<>(Map.of("name", name, "log", log.toString()));
            if (name.equals(crashed)) {
                input.put("crash_marker", crashMarker.toString());
            }
            inputs.add(json.writeValueAsString(input));
        }
        // One key: Flink Agents runs a key's inputs one after the other, so the second request
        // starts after the first one's crash and rerun. (An asynchronous call of another key in
        // flight at the crash would run again, its completion not yet recorded: at-least-once.)
        DurableAgents.connectToAgent(env.fromData(inputs).keyBy(input -> "user-1"), plan,
                        ActionStateStoreFactory.fileStores(tmp.resolve("journal").toString()))
                .addSink(new DiscardingSink<>());
        env.execute("python-agent");

        assertTrue(Files.exists(crashMarker), "the first run crashed the task");
        List<String> lines = Files.readAllLines(log);
        Map<String, Integer> runs = new TreeMap<>();
        List<String> answers = new ArrayList<>();
        List<String> journals = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("journal ")) {
                journals.add(line.substring("journal ".length()));
            } else if (line.startsWith("answer ")) {
                answers.add(line.substring("answer ".length()));
            } else {
                runs.merge(line, 1, Integer::sum);
            }
        }
        Map<String, Integer> expected = new TreeMap<>();
        for (String name : REQUESTS) {
            for (String call : List.of("look_up", "fetch", "forget", "charge", "submit")) {
                expected.put(call + " " + name, 1);
            }
            expected.put("action " + name, name.equals(crashed) ? 2 : 1);
        }
        expected.put("reconcile " + crashed, 1);
        // The journal each run of the action had, as the action saw it: the native one, which the
        // adapter's plan gives every Python action (JournaledPlans -> JournaledPythonFunction).
        String journal = NativeJournalContext.class.getName();
        System.out.println("[python agent] durable calls decided by " + journal);
        assertEquals(Collections.nCopies(REQUESTS.size() + 1, journal), journals, "every run of the action had it");
        assertEquals(expected, runs, "every side effect ran once; the crashed action ran twice, its pending call "
                + "settled by the reconciler:\n" + String.join("\n", lines));

        Map<String, Map<String, Object>> answered = new TreeMap<>();
        for (String answer : answers) {
            Map<String, Object> fields = json.readValue(answer, Map.class);
            answered.merge((String) fields.get("name"), fields, (a, b) -> {
                throw new AssertionError("request " + a.get("name") + " answered twice: " + answers);
            });
        }
        Map<String, Map<String, Object>> expectedAnswers = new TreeMap<>();
        for (String name : REQUESTS) {
            Map<String, Object> fields = new HashMap<>();
            fields.put("name", name);
            fields.put("looked_up", "profile of " + name);   // awaited before the action's continuation
            fields.put("fetched", List.of(name, List.of("a", "b")));
            fields.put("forgotten", null);    // a recorded None replays as None
            fields.put("failure", "QuotaExceeded: no quota left for " + name);   // the agent's own class
            fields.put("submitted", (name.equals(crashed) ? "reconciled " : "submitted ") + name);
            expectedAnswers.put(name, fields);
        }
        assertEquals(expectedAnswers, answered);
    }
}
