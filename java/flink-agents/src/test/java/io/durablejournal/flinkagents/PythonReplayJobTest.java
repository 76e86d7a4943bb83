package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.FileStoreOptions;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python replayer ({@code python -m durable_journal.replay}, docs/replay.md "Flink Agents
 * Python actions") over what a real job recorded: a Python agent ({@code
 * src/test/python/replay_agent.py}) on Flink Agents' own operator, wired by {@link
 * DurableAgents#connectToAgent} to file stores that retain completed actions (one keeps every
 * action, one only the last two, so the first request's memory updates are gone). The recordings
 * are replayed against each candidate of {@code src/test/python/replay_candidates.py} (one
 * Python process, {@code replay_expectations.py}, checks every exact report), then through
 * the command (JSON, a selection, --fail-on, the table), as a CI step runs it. Replays write nothing (every file of
 * both stores byte-identical) and run nothing (the side-effect log unchanged).
 */
class PythonReplayJobTest {
    private static final List<String> REQUESTS = List.of("alpha", "bravo", "charlie");

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
    void recordedPythonActionsReplayAgainstEachKindOfChangeWithoutRunningOrWritingAnything() throws Exception {
        Path log = tmp.resolve("side-effects.log");
        Path full = tmp.resolve("journal-full");
        Path bounded = tmp.resolve("journal-bounded");
        AgentPlan plan = PythonAgents.plan("replay_agent", "ReplayAgent");
        StreamExecutionEnvironment env = PythonAgents.restartingEnvironment(0);
        ObjectMapper json = new ObjectMapper();
        List<String> inputs = new ArrayList<>();
        for (String name : REQUESTS) {
            inputs.add(json.writeValueAsString(new TreeMap<>(Map.of("name", name, "log", log.toString()))));
        }
        DataStream<String> requests = env.fromData(inputs);
        // One key: its requests run one after the other, so each reads the memory the one before wrote.
        DurableAgents.connectToAgent(requests.keyBy(input -> "user-1"), plan, ActionStateStoreFactory.fileStores(full.toString(),
                        FileStoreOptions.defaults().retainCompleted(Duration.ofDays(1), 1000).planDigest("replay-agent@1")))
                .addSink(new DiscardingSink<>());
        DurableAgents.connectToAgent(requests.keyBy(input -> "user-1"), plan, ActionStateStoreFactory.fileStores(bounded.toString(),
                        FileStoreOptions.defaults().retainCompleted(Duration.ofDays(1), 2)))
                .addSink(new DiscardingSink<>());
        env.execute("python-agent-replay");

        Path fullStore = onlySubdirectory(full);
        Path boundedStore = onlySubdirectory(bounded);
        String sideEffects = Files.readString(log);
        assertEquals(REQUESTS.size() * 4 * 2, sideEffects.split("\n").length, "each request's four calls ran once in each job:\n"
                + sideEffects);
        Map<Path, String> before = snapshot(tmp);

        // Every candidate's exact report (replay_expectations.py asserts each, printing "ok <case>").
        Run expectations = python(new File(PythonAgents.AGENTS_DIR, "replay_expectations.py").getPath(), fullStore.toString(),
                boundedStore.toString());
        System.out.print("[python replay]\n" + expectations.out);
        assertEquals(0, expectations.exit, "every candidate's report is the expected one:\n" + expectations.out + expectations.err);
        assertEquals(12, expectations.out.lines().filter(line -> line.startsWith("ok ")).count(), expectations.out);

        // The command, as a CI step runs it: JSON, a selection, and an exit status chosen by --fail-on.
        Run diverged = replayCommand(fullStore, "replay_candidates:ChangedPrompt", "--limit", "1", "--json");
        assertEquals(1, diverged.exit, "a divergence fails the step by default:\n" + diverged.out + diverged.err);
        JsonNode report = json.readTree(diverged.out);
        assertEquals(1, report.at("/summary/replayed").asInt(), diverged.out);
        assertEquals(1, report.at("/summary/diverged").asInt(), diverged.out);
        assertEquals("diverged at 1", "diverged at " + report.at("/actions/0/stop/position").asInt());
        assertEquals(0, replayCommand(fullStore, "replay_candidates:ChangedPrompt", "--fail-on", "would-run,failed").exit,
                "--fail-on chooses what fails the step");
        Run table = replayCommand(fullStore, "replay_candidates:Unchanged", "--key", "str:user-1");
        assertEquals(0, table.exit, table.out + table.err);
        assertEquals("3 replayed of replay_candidates:Unchanged: 0 not-replayable, 0 diverged, 0 would-run, 0 failed, "
                + "0 not-triggered, 0 newly-triggered, 0 output-changed, 3 unchanged", last(table.out));
        assertEquals(2, replayCommand(fullStore, "replay_candidates:Missing").exit, "bad arguments");

        assertEquals(before, snapshot(tmp), "no replay changed, added or removed a file of either store");
        assertEquals(sideEffects, Files.readString(log), "no call's body ran during the replays");
    }

    private static final class Run {
        final int exit;
        final String out;
        final String err;

        Run(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }
    }

    private static Run replayCommand(Path store, String candidate, String... more) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("-m", "durable_journal.replay", "--store", store.toString(), "--agent", candidate));
        args.addAll(List.of(more));
        return python(args.toArray(new String[0]));
    }

    /** The environment's python with the test agents and durable_journal on its path, this build's library. */
    private static Run python(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(PythonAgents.EXECUTABLE);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("PYTHONPATH", String.join(File.pathSeparator, PythonAgents.pythonPath()));
        builder.environment().put("DURABLE_JOURNAL_LIB", System.getProperty("durablejournal.native.library"));
        Path out = Files.createTempFile("replay-out", ".txt");
        Path err = Files.createTempFile("replay-err", ".txt");
        try {
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("python " + String.join(" ", args) + " took over 180 s");
            }
            return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }

    private static String last(String text) {
        String[] lines = text.strip().split("\n");
        return lines[lines.length - 1];
    }

    /** The one store directory (one per subtask) the job's factory made under {@code base}. */
    private static Path onlySubdirectory(Path base) throws IOException {
        try (Stream<Path> children = Files.list(base)) {
            List<Path> dirs = new ArrayList<>();
            children.filter(Files::isDirectory).forEach(dirs::add);
            assertEquals(1, dirs.size(), "one subtask store under " + base + ": " + dirs);
            return dirs.get(0);
        }
    }

    /** Every file under {@code root} and its bytes (Base64, so that maps of them compare by content). */
    private static Map<Path, String> snapshot(Path root) throws IOException {
        Map<Path, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path file : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                files.put(root.relativize(file), Base64.getEncoder().encodeToString(Files.readAllBytes(file)));
            }
        }
        return files;
    }
}
