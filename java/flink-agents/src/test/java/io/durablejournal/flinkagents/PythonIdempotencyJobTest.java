package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.CallSemantics;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * A Python action ({@code src/test/python/idempotent_calls_agent.py}) on Flink Agents' operator
 * through {@link DurableAgents#connectToAgent}, with a failover during its two calls: the default
 * call runs again under the same idempotency key ({@code durable_journal.current_call()}), so the
 * service that deduplicates by it applies it once; the at-most-once call does not run again and
 * the action gets {@code CallInterruptedError}.
 */
class PythonIdempotencyJobTest {
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
    void aFailoverDuringPythonCallsRepeatsTheDefaultOneUnderItsKeyAndInterruptsTheAtMostOnceOne() throws Exception {
        Map<String, Integer> runs = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        List<String> answers = runWithAFailoverInEachCall("idempotent_calls_agent", "IdempotentCallsAgent", "notify", null,
                lines, runs);
        assertEquals(1, answers.size(), String.join("\n", lines));
        String[] parts = answers.get(0).split("\\|");
        String chargeKey = parts[0].substring("charge ".length());
        assertTrue(chargeKey.startsWith("idem:"), answers.get(0));
        assertTrue(parts[1].startsWith("interrupted idem:") && parts[1].endsWith(" at 1 of answer"), answers.get(0));
        String notifyKey = parts[1].split(" ")[1];
        Map<String, Integer> expected = new TreeMap<>();
        expected.put("charge", 2);
        expected.put("request " + chargeKey, 2);
        expected.put("notify", 1);
        expected.put("request " + notifyKey, 1);
        assertEquals(expected, runs, "the default call ran twice under one key, the at-most-once one once:\n"
                + String.join("\n", lines));
    }

    /**
     * {@code src/test/python/job_default_calls_agent.py} under the job default at most once: its
     * call that declares nothing is interrupted after a failover during it (its body ran once),
     * its {@code at_least_once} call runs again.
     */
    @Test
    @LongJobTimeout
    void underAnAtMostOnceJobDefaultAnUndeclaredPythonCallIsInterruptedAndAnAtLeastOnceOneRunsAgain() throws Exception {
        Map<String, Integer> runs = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        List<String> answers = runWithAFailoverInEachCall("job_default_calls_agent", "JobDefaultCallsAgent", "lookup",
                CallSemantics.AT_MOST_ONCE, lines, runs);
        assertEquals(1, answers.size(), String.join("\n", lines));
        String[] parts = answers.get(0).split("\\|");
        assertTrue(parts[0].startsWith("interrupted idem:"), answers.get(0));
        assertTrue(parts[1].startsWith("lookup idem:"), answers.get(0));
        assertEquals(Map.of("charge", 1, "lookup", 2), runs, "the undeclared call ran once, the at-least-once one twice:\n"
                + String.join("\n", lines));
    }

    /**
     * Runs the agent of {@code module} over one request, with 3 restarts, whose calls {@code charge}
     * and {@code secondCall} fail the task once each (their markers), under the job default
     * (null: none). Fills {@code lines} with the service's log and {@code runs} with its call
     * lines counted; returns its {@code answer} lines.
     */
    private List<String> runWithAFailoverInEachCall(String module, String agentClass, String secondCall,
            CallSemantics jobDefault, List<String> lines, Map<String, Integer> runs) throws Exception {
        Path log = tmp.resolve("service.log");
        AgentPlan plan = PythonAgents.plan(module, agentClass);
        StreamExecutionEnvironment env = PythonAgents.restartingEnvironment(3);
        String input = new ObjectMapper().writeValueAsString(Map.of("log", log.toString(),
                "charge_marker", tmp.resolve("charge-crashed").toString(),
                secondCall + "_marker", tmp.resolve(secondCall + "-crashed").toString()));
        DurableAgents.connectToAgent(env.fromData(List.of(input)).keyBy(request -> "user-1"), plan,
                        ActionStateStoreFactory.fileStores(tmp.resolve("journal").toString()), jobDefault)
                .addSink(new DiscardingSink<>());
        env.execute(module);
        lines.addAll(Files.readAllLines(log));
        List<String> answers = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("answer ")) {
                answers.add(line.substring("answer ".length()));
            } else {
                runs.merge(line, 1, Integer::sum);
            }
        }
        return answers;
    }
}
