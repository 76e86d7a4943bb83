package io.durablejournal.flink.replay;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * The replayer as a command for a shell or a CI step (docs/replay.md):
 *
 * <pre>
 * java -cp '&lt;jars&gt;' io.durablejournal.flink.replay.JournalReplayerMain \
 *     (--store &lt;store-dir&gt; | --dump &lt;file&gt; | --kafka &lt;servers&gt; --topic &lt;t&gt; [--config &lt;file&gt;])
 *     --candidate &lt;class&gt; [--key str:user-1] [--action name] [--limit n]
 *     [--since ms] [--until ms] [--stub tool:mail='"sent"'] [--stub llm=@answer.json] [--plan-restore WARN|CUT|FAIL]
 *     [--json] [--fail-on diverged,would-run,failed,output-changed,not-replayable]
 * </pre>
 *
 * {@code --candidate} names a class with a public no-argument constructor that implements {@code
 * Supplier<ReplayCandidate<?, ?>>}. {@code --stub} answers a call the recording lacks with a JSON
 * value ({@link ReplayCandidate#withStubJson}); {@code --plan-restore} plans a restore of the
 * journals in flight of the {@code --store} under the job's divergence policy ({@link
 * JournalReplayer#planRestore}) instead of replaying the completed actions. A store directory is read without its lock, a topic without a consumer group, and nothing is
 * written. Exit status: 0 when no action's outcome is in {@code --fail-on} (default: every outcome
 * but unchanged), 1 when one is, 2 for bad arguments.
 */
public final class JournalReplayerMain {
    private JournalReplayerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** What {@link #main} does, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return ReplayCommand.run("JournalReplayerMain", "--candidate", args, out, err, JournalReplayerMain::candidate,
                (candidate, command) -> replay(candidate, command));
    }

    private static <IN, OUT> ReplayReport replay(ReplayCandidate<IN, OUT> candidate, ReplayCommand command) {
        JournalReplayer<IN, OUT> replayer = JournalReplayer.of(command.withStubs(candidate, ReplayCandidate::withStubJson));
        return command.restorePolicy() == null ? replayer.replay(command.recorded(), command.selection())
                : replayer.planRestore(command.store(), command.restorePolicy(), command.selection());
    }

    @SuppressWarnings("unchecked")
    private static ReplayCandidate<?, ?> candidate(String className) throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
        Supplier<ReplayCandidate<?, ?>> supplier = (Supplier<ReplayCandidate<?, ?>>) type.getConstructor().newInstance();
        return supplier.get();
    }
}
