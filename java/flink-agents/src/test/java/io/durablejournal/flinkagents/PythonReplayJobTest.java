package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.FileStoreOptions;
import io.durablejournal.testing.LongJobTimeout;
import io.durablejournal.testing.MiniClusters;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Python process, {@code replay_expectations.py}, checks every exact report), then once through
 * the command, whose exit status and JSON a CI step reads. Replays write nothing (every file of
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
        assertEquals(REQUESTS.size() * 2 * 2, sideEffects.split("\n").length, "each request's two calls ran once in each job:\n"
                + sideEffects);
        Map<Path, byte[]> before = snapshot(tmp);

        String dev = System.getenv("DJ_REPLAY_DEV_COPY");
        if (dev != null) {
            copyTree(tmp, Path.of(dev));
        }
        assertEquals(before.keySet(), snapshot(tmp).keySet());
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

    /** Every file under {@code root} and its bytes. */
    private static Map<Path, byte[]> snapshot(Path root) throws IOException {
        Map<Path, byte[]> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path file : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                files.put(root.relativize(file), Files.readAllBytes(file));
            }
        }
        return files;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
