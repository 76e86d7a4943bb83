package io.durablejournal.flinkagents.demo;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
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
 * {@code gradle demoFlinkAgents} (or {@code gradle demo -PdemoArgs=--flink-agents}): the demo
 * story with a real Flink Agents agent on Flink Agents' own operator, on a local Flink. One
 * request's second action crashes after its first tool call, after a completed checkpoint;
 * Flink restarts the job from that checkpoint. Prints what ran, what was replayed, and whether
 * any side effect ran twice. Options: {@code --requests N}, {@code --dir DIR}, {@code --compare}
 * (also run the job on Flink Agents without a store).
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) throws Exception {
        // Flink reports the injected crash as a task failure with a stack trace: expected here.
        for (String logger : new String[] {"org.apache.flink.runtime", "org.apache.flink.streaming",
                "org.apache.flink.agents", "org.apache.flink.api"}) {
            if (System.getProperty("org.slf4j.simpleLogger.log." + logger) == null) {
                System.setProperty("org.slf4j.simpleLogger.log." + logger, "off");
            }
        }
        Path workDir = Paths.get("build", "demo", "flink-agents");
        int requests = 24;
        boolean compare = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": workDir = Paths.get(args[++i]); break;
                case "--requests": requests = Integer.parseInt(args[++i]); break;
                case "--compare": compare = true; break;
                case "--flink-agents": break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + " (use --dir, --requests, --compare)");
            }
        }
        if (requests < 8) {
            throw new IllegalArgumentException("--requests must be at least 8");
        }
        workDir = workDir.toAbsolutePath();
        wipe(workDir);

        AgentJob.Settings settings = settings(workDir.resolve("journaled"), requests, true);
        System.out.println("durable-journal on Apache Flink Agents: a Flink Agents agent on Flink Agents' own operator, "
                + requests + " requests, parallelism " + settings.parallelism);
        System.out.println("  agent:         SupportAgent, @Action draft (a chat call) -> @Action resolve (two tool calls),"
                + " each call through ctx.durableExecute");
        System.out.println("  journal store: " + settings.storeDir()
                + " (DurableAgents.connectToAgent over file stores, one directory per subtask)");
        System.out.println("  side effects:  " + settings.sideEffectFile());
        AgentJob.Outcome outcome = AgentJob.run(env(), settings);
        boolean ok = report("with the journal store", settings, outcome, requests);
        printStores(settings);

        if (compare) {
            AgentJob.Settings plain = settings(workDir.resolve("no-store"), requests, false);
            report("on Flink Agents WITHOUT a store", plain, AgentJob.run(env(), plain), requests);
        }
        System.out.println();
        System.out.println(ok ? "OK: with the journal store the job recovered and no side effect ran twice."
                : "FAILED: see above.");
        if (!ok) {
            System.exit(1);
        }
    }

    private static AgentJob.Settings settings(Path workDir, int requests, boolean journal) {
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = workDir;
        settings.requests = requests;
        settings.gateAt = requests / 2 - 1;
        settings.crashAt = settings.gateAt + 2;
        settings.journal = journal;
        return settings;
    }

    private static StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.getExecutionEnvironment(AgentJob.flinkConfiguration(Duration.ofMillis(200)));
    }

    private static boolean report(String title, AgentJob.Settings settings, AgentJob.Outcome outcome, int requests) {
        List<String> expected = AgentJob.expectedAnswers(requests);
        long correct = outcome.answers.stream().filter(expected::contains).count();
        int duplicates = outcome.duplicateSideEffects();
        System.out.println();
        System.out.println("Run " + title + " (" + String.format("%.1f", outcome.wallMillis / 1000.0) + " s):");
        System.out.println("  crash:         " + (outcome.crashed
                ? SupportRequest.id(settings.crashAt) + "'s resolve action crashed after its first tool call, after a completed"
                        + " checkpoint; Flink restarted the job from that checkpoint"
                : "none happened"));
        System.out.println("  answers:       " + outcome.answers.size() + " emitted, " + correct + " of " + requests + " correct");
        System.out.println("  calls ran:     " + outcome.callsExecuted + " side effects for " + outcome.sideEffects.size()
                + " distinct calls (" + requests + " requests x 3)");
        if (settings.journal) {
            System.out.println("  replayed:      " + outcome.callsReplayed() + " call(s) replayed from the journal (not run again), "
                    + outcome.actionsReemitted + " completed actions re-emitted from the store without running, "
                    + outcome.actionsResumed + " interrupted action(s) resumed");
        }
        System.out.println("  duplicates:    " + (duplicates == 0 ? "none: no side effect ran twice"
                : duplicates + " side effects ran again"));
        return outcome.crashed && duplicates == 0 && outcome.callsExecuted == requests * 3 && correct == requests
                && outcome.answers.size() == requests;
    }

    private static void printStores(AgentJob.Settings settings) throws IOException {
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
                System.out.println("  store " + dir.getFileName() + ":  " + bytes + " bytes on disk, " + store.stats().entries()
                        + " entries left after the final checkpoint's prune");
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
