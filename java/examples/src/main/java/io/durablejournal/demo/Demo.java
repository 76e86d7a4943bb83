package io.durablejournal.demo;

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
 * {@code gradle demo}: a support agent on a local Flink answers a stream of requests, each with a
 * chat call and two tool calls (side effects appended to a file outside Flink). One request
 * crashes mid-action after a checkpoint; Flink restarts from the checkpoint and the durable
 * journal replays what already ran. The story runs on both operators durable-journal serves:
 * its own ({@link AgentJob}: {@code DurableActionFunction}, an {@code AgentAction}) and Flink
 * Agents' ({@code io.durablejournal.flinkagents.demo.AgentJob}: a Flink Agents {@code Agent} with
 * two {@code @Action}s, wired by {@code DurableAgents.connectToAgent} over file stores). It prints
 * what ran, what was replayed, and whether any side effect ran twice, and exits non-zero if the
 * story does not hold.
 *
 * <p>Arguments (all optional): {@code --operator durable-journal|flink-agents|both} (default
 * both; {@code --flink-agents} is {@code --operator flink-agents}), {@code --requests <n>}
 * (default 24), {@code --dir <work dir>} (default {@code build/demo}; wiped first), {@code
 * --compare} (also run each job without the journal, to show the duplicates that makes), {@code
 * --replay} (instead: record a run with retention on and replay it against a changed agent,
 * {@link ReplayDemo}).
 */
public final class Demo {
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(200);

    private Demo() {}

    /** One operator the demo runs on. */
    private enum Operator {
        DURABLE_JOURNAL("durable-journal", "durable-journal's operator: DurableActionFunction running an AgentAction"),
        FLINK_AGENTS("flink-agents", "Flink Agents' operator: a Flink Agents Agent, @Action draft (a chat call) ->"
                + " @Action resolve (two tool calls), each call through ctx.durableExecute, wired by"
                + " DurableAgents.connectToAgent");

        final String option;
        final String description;

        Operator(String option, String description) {
            this.option = option;
            this.description = description;
        }
    }

    public static void main(String[] args) throws Exception {
        // Flink reports the injected crash as a task failure with a stack trace: expected here.
        for (String logger : new String[] {"org.apache.flink.runtime", "org.apache.flink.streaming",
                "org.apache.flink.agents", "org.apache.flink.api"}) {
            if (System.getProperty("org.slf4j.simpleLogger.log." + logger) == null) {
                System.setProperty("org.slf4j.simpleLogger.log." + logger, "off");
            }
        }
        Path workDir = Paths.get("build", "demo");
        int requests = 24;
        boolean compare = false;
        boolean replay = false;
        List<Operator> operators = List.of(Operator.values());
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": workDir = Paths.get(args[++i]); break;
                case "--requests": requests = Integer.parseInt(args[++i]); break;
                case "--compare": compare = true; break;
                case "--replay": replay = true; break;
                case "--flink-agents": operators = List.of(Operator.FLINK_AGENTS); break;
                case "--operator": operators = operators(args[++i]); break;
                default: throw new IllegalArgumentException(
                        "unknown argument " + args[i] + " (use --operator, --flink-agents, --requests, --dir, --compare, --replay)");
            }
        }
        if (requests < 8) {
            throw new IllegalArgumentException("--requests must be at least 8");
        }
        workDir = workDir.toAbsolutePath();
        wipe(workDir);
        if (replay) {
            boolean held = ReplayDemo.run(workDir);
            System.out.println(held ? "OK: replayed without running a call." : "FAILED: see above.");
            if (!held) {
                System.exit(1);
            }
            return;
        }

        boolean ok = true;
        for (Operator operator : operators) {
            Path dir = workDir.resolve(operator.option);
            System.out.println("durable-journal demo on " + operator.description);
            System.out.println("  " + requests + " requests, a chat call and two tool calls each, parallelism 2");
            System.out.println("  journal store: " + dir.resolve("journaled").resolve("store")
                    + " (file stores, one directory per subtask)");
            System.out.println("  side effects:  " + dir.resolve("journaled").resolve("side-effects.log"));
            ok &= run(operator, dir.resolve("journaled"), requests, true);
            if (compare) {
                run(operator, dir.resolve("no-journal"), requests, false);
            }
            System.out.println();
        }
        System.out.println(ok ? "OK: with the journal every job recovered and no side effect ran twice." : "FAILED: see above.");
        if (!ok) {
            System.exit(1);
        }
    }

    private static List<Operator> operators(String option) {
        if (option.equals("both")) {
            return List.of(Operator.values());
        }
        for (Operator operator : Operator.values()) {
            if (operator.option.equals(option)) {
                return List.of(operator);
            }
        }
        throw new IllegalArgumentException("--operator takes durable-journal, flink-agents or both, not " + option);
    }

    /** Runs the job on {@code operator}, prints what happened; true when the story held. */
    private static boolean run(Operator operator, Path dir, int requests, boolean journal) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(DemoJobs.flinkConfiguration(CHECKPOINT_INTERVAL));
        JobSettings settings;
        JobOutcome outcome;
        String crash;
        long callsReplayed;
        List<String> expected;
        if (operator == Operator.DURABLE_JOURNAL) {
            AgentJob.Settings ours = new AgentJob.Settings(dir);
            // Requests 4k..4k+3 share a user; gate and crash inside one user's group, past the middle.
            int group = (requests / 2) / 4 * 4;
            ours.gateAt = group + 1;
            ours.crashAt = group + 3;
            settings = configure(ours, requests, journal);
            AgentJob.Outcome run = AgentJob.run(env, ours);
            outcome = run;
            callsReplayed = run.callsReplayed;
            crash = RequestSource.requestId(ours.crashAt) + " crashed after " + ours.crashAfterCalls + " of its 3 calls";
            expected = AgentJob.expectedAnswers(requests);
        } else {
            io.durablejournal.flinkagents.demo.AgentJob.Settings theirs = new io.durablejournal.flinkagents.demo.AgentJob.Settings(dir);
            theirs.gateAt = requests / 2 - 1;
            theirs.crashAt = theirs.gateAt + 2;
            settings = configure(theirs, requests, journal);
            io.durablejournal.flinkagents.demo.AgentJob.Outcome run = io.durablejournal.flinkagents.demo.AgentJob.run(env, theirs);
            outcome = run;
            callsReplayed = run.callsReplayed();
            crash = RequestSource.requestId(theirs.crashAt) + "'s resolve action crashed after its first tool call";
            expected = io.durablejournal.flinkagents.demo.AgentJob.expectedAnswers(requests);
        }
        boolean ok = report(journal ? "with the journal store" : "WITHOUT the journal", outcome, crash, callsReplayed, expected,
                journal);
        if (journal) {
            printStores(settings);
        }
        return ok;
    }

    private static <S extends JobSettings> S configure(S settings, int requests, boolean journal) {
        settings.requests = requests;
        settings.journal = journal;
        return settings;
    }

    private static boolean report(String title, JobOutcome outcome, String crash, long callsReplayed, List<String> expected,
            boolean journal) {
        int requests = expected.size();
        long correct = outcome.answers.stream().filter(expected::contains).count();
        int calls = outcome.sideEffectsRun();
        int duplicates = outcome.duplicateSideEffects();
        System.out.println();
        System.out.println("Run " + title + " (" + String.format("%.1f", outcome.wallMillis / 1000.0) + " s):");
        System.out.println("  crash:         " + (outcome.crashed
                ? crash + ", after a completed checkpoint; Flink restarted the job from that checkpoint"
                : "none happened"));
        System.out.println("  answers:       " + outcome.answers.size() + " emitted, " + correct + " of " + requests + " correct");
        System.out.println("  calls ran:     " + calls + " side effects for " + outcome.sideEffects.size() + " distinct calls ("
                + requests + " requests x 3)");
        if (journal) {
            System.out.println("  replayed:      " + callsReplayed + " call(s) replayed from the journal (not run again), "
                    + outcome.actionsReemitted + " completed action(s) re-emitted from the store without running, "
                    + outcome.actionsResumed + " interrupted action(s) resumed");
        }
        System.out.println("  duplicates:    " + (duplicates == 0 ? "none: no side effect ran twice" : duplicates + " side effects ran again"));
        return outcome.crashed && duplicates == 0 && calls == requests * 3 && correct == requests
                && outcome.answers.size() == requests;
    }

    private static void printStores(JobSettings settings) throws IOException {
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
