package io.durablejournal.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * durable-journal on a real Flink standalone cluster, as users run one: a JobManager and two
 * TaskManagers, each its own process ({@link FlinkCluster}), and the demo's cluster job
 * ({@code io.durablejournal.flinkagents.cluster.ClusterJob}: a Flink Agents agent wired by
 * {@code DurableAgents.connectToAgent} over file stores) submitted as a job jar through the REST
 * API, the project's jars and Flink Agents' inside it (Flink Agents in the cluster's {@code lib/}
 * keeps every job's class loader alive by itself, with no durable-journal class in the job).
 *
 * <p>The TaskManager running the crash request's action is SIGKILLed once that action's durable
 * calls returned (a value, a {@code null}, a failure of the agent's own exception class) and a
 * checkpoint completed; after the failover every call ran exactly once, the null and the failure
 * came back as recorded, and the surviving TaskManager's log has the restore's INFO line. Then a
 * replacement TaskManager joins and the job is submitted 20 more times (every other run cancelled
 * once it has answered, the others finishing): each run ends as it should, and
 * after a full GC the TaskManagers hold as much memory, as many mappings of the native library and
 * as many job class loaders after run 20 as after run 5 (printed as {@code [cluster]} lines), and
 * no process wrote a JVM crash file.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClusterFailoverTest {
    private static final String ENTRY_CLASS = "io.durablejournal.flinkagents.cluster.ClusterJob";
    private static final int REQUESTS = 6;
    private static final int CRASH_AT = 3;
    private static final int RESUBMITS = 20;
    /** The runs after which the TaskManagers' footprints are compared (the first runs warm the JVMs up). */
    private static final List<Integer> MEASURED_RUNS = Arrays.asList(5, 10, 15, 20);
    private static final List<String> CALLS = Arrays.asList("chat", "lookup-account", "discount", "charge", "open-ticket");
    /** The restore line JournalActionStateStore logs through SLF4J, as Flink's Log4j writes it. */
    private static final String RESTORE_LINE = "INFO  io.durablejournal.flinkagents.JournalActionStateStore - ";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(3);

    @Test
    void aKilledTaskManagerLosesNoCallAndResubmitsLeaveNothingBehind() throws Exception {
        long started = System.nanoTime();
        Path root = Files.createDirectories(Paths.get(System.getProperty("durablejournal.cluster.workDir")));
        Path dir = Files.createTempDirectory(root, "cluster-");
        Path jobJar = Paths.get(System.getProperty("durablejournal.cluster.jobJar"));
        try (FlinkCluster cluster = FlinkCluster.start(dir.resolve("cluster"), 2, Duration.ofMinutes(3))) {
            System.out.println("[cluster] up in " + millisSince(started) + " ms: " + cluster.liveTaskManagers());
            String jar = cluster.rest.upload(jobJar);

            long failoverStarted = System.nanoTime();
            Path failoverRun = dir.resolve("failover");
            String job = cluster.rest.run(jar, ENTRY_CLASS, runArgs(failoverRun, "--crash-at", Integer.toString(CRASH_AT)));
            Path staged = failoverRun.resolve("crash-staged");
            FlinkRest.await("the crash request's action to wait to be killed", JOB_TIMEOUT, () -> Files.exists(staged));
            String victim = cluster.nameOf(Long.parseLong(new String(Files.readAllBytes(staged), StandardCharsets.UTF_8).trim()));
            String crashRequest = requestId(CRASH_AT);
            Map<String, Integer> beforeKill = sideEffects(failoverRun);
            assertEquals(1, beforeKill.getOrDefault(crashRequest + "/charge", 0), "the crash request's calls returned: " + beforeKill);
            assertEquals(0, beforeKill.getOrDefault(crashRequest + "/open-ticket", 0), "its last call did not run: " + beforeKill);
            assertTrue(cluster.rest.completedCheckpoints(job) >= 1, "a checkpoint completed before the kill");
            cluster.kill(victim);
            List<String> survivors = cluster.liveTaskManagers();
            cluster.rest.awaitState(job, "FINISHED", JOB_TIMEOUT);
            System.out.println("[cluster] " + victim + " SIGKILLed; the job finished on " + survivors + " "
                    + millisSince(failoverStarted) + " ms after its submission");

            assertEveryCallRanOnce(failoverRun);
            assertAnswered(failoverRun);
            assertEquals(1, cluster.rest.accumulator(job, "durable-journal.actions-resumed"),
                    "the interrupted action resumed over its journal");
            assertRestoreLogged(cluster, survivors);

            cluster.startTaskManager();
            cluster.rest.awaitTaskManagers(2, Duration.ofMinutes(2));
            Map<String, Map<Integer, ProcessFootprint>> footprints = new TreeMap<>();
            long resubmitsStarted = System.nanoTime();
            for (int run = 1; run <= RESUBMITS; run++) {
                Path runDir = dir.resolve("run-" + run);
                // Every other run is cancelled once it has answered, as a long-running job is
                // redeployed; the others finish: both ends of a job release its class loader.
                boolean cancelled = run % 2 == 0;
                String id = cluster.rest.run(jar, ENTRY_CLASS, runArgs(runDir, "--until-cancelled", Boolean.toString(cancelled)));
                if (cancelled) {
                    FlinkRest.await("every answer of " + runDir.getFileName(), JOB_TIMEOUT, () -> answerCount(runDir) == REQUESTS);
                    cluster.rest.cancel(id);
                    cluster.rest.awaitState(id, "CANCELED", JOB_TIMEOUT);
                } else {
                    cluster.rest.awaitState(id, "FINISHED", JOB_TIMEOUT);
                }
                assertEveryCallRanOnce(runDir);
                assertAnswered(runDir);
                if (MEASURED_RUNS.contains(run)) {
                    for (String taskManager : cluster.liveTaskManagers()) {
                        ProcessFootprint footprint = ProcessFootprint.afterGc(cluster.pid(taskManager));
                        footprints.computeIfAbsent(taskManager, t -> new LinkedHashMap<>()).put(run, footprint);
                        System.out.println("[cluster] after run " + run + ", " + taskManager + ": " + footprint);
                    }
                }
            }
            System.out.println("[cluster] " + RESUBMITS + " runs in " + millisSince(resubmitsStarted) + " ms");
            assertEquals(new ArrayList<Path>(), cluster.crashFiles(), "no JVM crash file");
            for (Map.Entry<String, Map<Integer, ProcessFootprint>> taskManager : footprints.entrySet()) {
                ProcessFootprint first = taskManager.getValue().get(MEASURED_RUNS.get(0));
                ProcessFootprint last = taskManager.getValue().get(RESUBMITS);
                String figures = taskManager.getKey() + ": " + taskManager.getValue();
                assertEquals(first.libraryMappings, last.libraryMappings, "library mappings stay flat, " + figures);
                assertEquals(first.jobClassLoaders, last.jobClassLoaders, "job class loaders stay flat, " + figures);
                // A job class loader kept alive costs 6 to 10 MB a run (150 MB over these 15); a TaskManager
                // that lets go of them grows 1 to 2 MB a run (code cache, metaspace chunks).
                assertTrue(last.rssKb - first.rssKb < 48 * 1024, "RSS stays flat (within 48 MB over 15 runs), " + figures);
            }
        } finally {
            System.out.println("[timing] ClusterFailoverTest: " + millisSince(started) + " ms");
        }
        deleteRecursively(dir);
    }

    private static List<String> runArgs(Path runDir, String... more) {
        List<String> args = new ArrayList<>(Arrays.asList("--run-dir", runDir.toString(), "--requests", Integer.toString(REQUESTS)));
        args.addAll(Arrays.asList(more));
        return args;
    }

    private static String requestId(int i) {
        return String.format("req-%02d", i);
    }

    /** How many times each call ran, by {@code <requestId>/<callId>} (the job's side-effect log). */
    private static Map<String, Integer> sideEffects(Path runDir) throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        Path log = runDir.resolve("side-effects.log");
        if (Files.exists(log)) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (!line.isEmpty()) {
                    counts.merge(line, 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    private static long answerCount(Path runDir) throws IOException {
        try (Stream<Path> answers = Files.list(runDir.resolve("answers"))) {
            return answers.filter(f -> !f.getFileName().toString().startsWith(".")).count();
        }
    }

    private static void assertEveryCallRanOnce(Path runDir) throws IOException {
        Map<String, Integer> expected = new TreeMap<>();
        for (int i = 0; i < REQUESTS; i++) {
            for (String call : CALLS) {
                expected.put(requestId(i) + "/" + call, 1);
            }
        }
        assertEquals(expected, sideEffects(runDir), "every call of " + runDir.getFileName() + " ran exactly once");
    }

    /**
     * Each answer is built from calls that ran once ({@code (run 1)}), the discount call's recorded
     * {@code null} and the charge call's recorded failure, caught as the agent's own exception class.
     */
    private static void assertAnswered(Path runDir) throws IOException {
        for (int i = 0; i < REQUESTS; i++) {
            String id = requestId(i);
            String user = "user_" + (i % 3);
            String expected = id + ": draft for 'question " + i + "' (run 1) / account of " + user + " (run 1) / discount none"
                    + " / quota: over quota for " + user + " / ticket for " + id + " (run 1)";
            Path answer = runDir.resolve("answers").resolve(id);
            assertTrue(Files.exists(answer), "an answer to " + id + " in " + runDir.getFileName());
            assertEquals(expected, new String(Files.readAllBytes(answer), StandardCharsets.UTF_8));
        }
    }

    /** The restored subtasks' INFO lines reached the surviving TaskManagers' Log4j files. */
    private static void assertRestoreLogged(FlinkCluster cluster, List<String> survivors) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String taskManager : survivors) {
            try (Stream<String> log = Files.lines(cluster.logFile(taskManager), StandardCharsets.UTF_8)) {
                lines.addAll(log.filter(l -> l.contains(RESTORE_LINE)).collect(Collectors.toList()));
            }
        }
        System.out.println("[cluster] restore lines: " + lines);
        assertTrue(lines.stream().anyMatch(l -> l.contains("was restored from a checkpoint")
                        && l.contains("interrupted actions resumed 1 (recorded calls to replay 3)")),
                "a restored subtask logged that it resumed the interrupted action, its 3 recorded calls to replay: " + lines);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted((a, b) -> b.compareTo(a))::iterator) {
                Files.delete(path);
            }
        }
    }
}
