package io.durablejournal.demo;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.store.StoreStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code gradle demo}: an agent-style job on a local Flink processes a stream of requests, each
 * making a chat call and two tool calls (side effects appended to a file outside Flink). One
 * request crashes mid-action after a checkpoint; Flink restarts from the checkpoint and the
 * durable journal in the embedded file store replays what already ran. The demo prints what ran,
 * what was replayed, and whether any side effect ran twice, and exits non-zero if the story does
 * not hold.
 *
 * <p>Arguments (all optional): {@code --dir <work dir>} (default {@code build/demo}; wiped first),
 * {@code --requests <n>} (default 30), {@code --compare} (also run the same job without the
 * journal, to show the duplicates it makes).
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) throws Exception {
        // Flink reports the injected crash as a task failure with a stack trace: expected here.
        quiet("org.apache.flink.runtime.executiongraph");
        quiet("org.apache.flink.runtime.taskmanager");
        quiet("org.apache.flink.runtime.scheduler");
        quiet("org.apache.flink.runtime.checkpoint");
        quiet("org.apache.flink.streaming.runtime.tasks");
        quiet("org.apache.flink.runtime.jobmaster");
        // The local cluster shuts down with the job; the result iterator then logs that it could
        // not ask for the job status (the results are complete: they come with the job result).
        quiet("org.apache.flink.streaming.api.operators.collect");
        quiet("org.apache.flink.runtime.security.token");
        quiet("org.apache.flink.runtime.webmonitor");

        Path workDir = Paths.get("build", "demo");
        int requests = 30;
        boolean compare = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": workDir = Paths.get(args[++i]); break;
                case "--requests": requests = Integer.parseInt(args[++i]); break;
                case "--compare": compare = true; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + " (use --dir, --requests, --compare)");
            }
        }
        if (requests < 8) {
            throw new IllegalArgumentException("--requests must be at least 8");
        }
        workDir = workDir.toAbsolutePath();
        wipe(workDir);

        AgentJob.Settings settings = settings(workDir.resolve("journaled"), requests, true);
        System.out.println("durable-journal demo: an agent job on a local Flink, " + requests
                + " requests, each a chat call and two tool calls");
        System.out.println("  journal store: " + settings.storeDir() + " (embedded file store, one directory per subtask)");
        System.out.println("  side effects:  " + settings.sideEffectLog());
        AgentJob.Outcome outcome = AgentJob.run(env(), settings);
        boolean ok = report("with the journal", settings, outcome, requests);
        printStore(settings);

        if (compare) {
            AgentJob.Settings plain = settings(workDir.resolve("no-journal"), requests, false);
            AgentJob.Outcome without = AgentJob.run(env(), plain);
            report("the same job WITHOUT the journal", plain, without, requests);
        }
        System.out.println(ok ? "OK: with the journal the job recovered and no side effect ran twice." : "FAILED: see above.");
        if (!ok) {
            System.exit(1);
        }
    }

    private static AgentJob.Settings settings(Path workDir, int requests, boolean journal) {
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = workDir;
        settings.requests = requests;
        // Requests 4k..4k+3 share a user; gate and crash inside one user's group, past the middle.
        int group = (requests / 2) / 4 * 4;
        settings.gateAt = group + 1;
        settings.crashAt = group + 3;
        settings.journal = journal;
        settings.checkpointInterval = Duration.ofMillis(200);
        return settings;
    }

    private static StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.getExecutionEnvironment(AgentJob.flinkConfiguration(Duration.ofMillis(200)));
    }

    private static boolean report(String title, AgentJob.Settings settings, AgentJob.Outcome outcome, int requests) {
        List<String> expected = AgentJob.expectedAnswers(requests);
        long correct = outcome.answers.stream().filter(expected::contains).count();
        int calls = outcome.callsExecuted();
        int duplicates = outcome.duplicateSideEffects();
        System.out.println();
        System.out.println("Run " + title + " (" + String.format("%.1f", outcome.wallMillis / 1000.0) + " s):");
        System.out.println("  crash:         " + (outcome.crashed
                ? RequestSource.requestId(settings.crashAt) + " crashed after " + settings.crashAfterCalls
                        + " of its 3 calls, after a completed checkpoint; Flink restarted the job from that checkpoint"
                : "none happened"));
        System.out.println("  answers:       " + outcome.answers.size() + " emitted, " + correct + " of " + requests + " correct");
        System.out.println("  calls ran:     " + calls + " side effects for " + outcome.sideEffects.size() + " distinct calls ("
                + requests + " requests x 3)");
        if (settings.journal) {
            System.out.println("  replayed:      " + outcome.callsReplayed + " calls replayed from the journal (not run again), "
                    + outcome.actionsReemitted + " completed actions re-emitted from the store without running, "
                    + outcome.actionsResumed + " interrupted action resumed");
        }
        System.out.println("  duplicates:    " + (duplicates == 0 ? "none: no side effect ran twice" : duplicates + " side effects ran again"));
        return outcome.crashed && duplicates == 0 && calls == requests * 3 && correct == requests
                && outcome.answers.size() == requests;
    }

    private static void printStore(AgentJob.Settings settings) throws IOException {
        for (int subtask = 0; subtask < settings.parallelism; subtask++) {
            Path dir = ActionStateStoreFactory.subtaskDirectory(settings.storeDir().toString(), subtask);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            long bytes;
            try (Stream<Path> files = Files.list(dir)) {
                bytes = files.mapToLong(Demo::size).sum();
            }
            try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
                StoreStats stats = store.stats();
                System.out.println("  store " + dir.getFileName() + ":  " + dir + " (" + bytes + " bytes on disk, "
                        + stats.entries() + " entries left after the final checkpoint's prune)");
            }
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    private static void quiet(String logger) {
        if (System.getProperty("org.slf4j.simpleLogger.log." + logger) == null) {
            System.setProperty("org.slf4j.simpleLogger.log." + logger, "error");
        }
    }

    private static void wipe(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
    }
}
