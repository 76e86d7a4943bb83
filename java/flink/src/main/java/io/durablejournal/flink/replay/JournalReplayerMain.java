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
 *     [--since ms] [--until ms] [--json] [--fail-on diverged,would-run,failed,output-changed,not-replayable]
 * </pre>
 *
 * {@code --candidate} names a class with a public no-argument constructor that implements {@code
 * Supplier<ReplayCandidate<?, ?>>}. A store directory is read without its lock, a topic without a consumer group, and nothing is
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
                (candidate, command) -> JournalReplayer.of(candidate).replay(command.recorded(), command.selection()));
    }

    @SuppressWarnings("unchecked")
    private static ReplayCandidate<?, ?> candidate(String className) throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
        Supplier<ReplayCandidate<?, ?>> supplier = (Supplier<ReplayCandidate<?, ?>>) type.getConstructor().newInstance();
        return supplier.get();
    }
}
