package io.durablejournal.flink.replay;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Paths;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The replayer as a command for a shell or a CI step (docs/replay.md):
 *
 * <pre>
 * java -cp '&lt;jars&gt;' io.durablejournal.flink.replay.JournalReplayerMain \
 *     (--store &lt;store-dir&gt; | --dump &lt;file&gt; | --kafka &lt;servers&gt; --topic &lt;retained-topic&gt; [--config &lt;file&gt;])
 *     --candidate &lt;class&gt; [--key str:user-1] [--action name] [--limit n]
 *     [--since ms] [--until ms] [--json] [--fail-on diverged,would-run,failed,output-changed,not-replayable]
 * </pre>
 *
 * {@code --candidate} names a class with a public no-argument constructor that implements {@code
 * Supplier<ReplayCandidate<?, ?>>}. {@code --store} reads a file store directory without its
 * lock; {@code --dump} a dump of a Kafka store's retained topic ({@code KafkaJournalTool dump});
 * {@code --kafka} that topic itself, with assigned partitions (no consumer group, nothing
 * committed; client settings from {@code --config}, needs the Kafka jar on the classpath). Nothing
 * is written. Exit status: 0 when no action's outcome is in {@code --fail-on} (default: every outcome
 * but unchanged), 1 when one is, 2 for bad arguments.
 */
public final class JournalReplayerMain {
    private static final String USAGE = "usage: JournalReplayerMain (--store <dir> | --dump <file> | --kafka <servers> --topic <t>"
            + " [--config <client.properties>]) --candidate <class> [--key k] "
            + "[--action name] [--limit n] [--since ms] [--until ms] [--json] [--fail-on outcome,...]";

    private JournalReplayerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** What {@link #main} does, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String store = null;
        String dump = null;
        String kafka = null;
        String topic = null;
        String clientConfig = null;
        String candidateClass = null;
        boolean json = false;
        ReplaySelection selection = ReplaySelection.all();
        long since = Long.MIN_VALUE;
        long until = Long.MAX_VALUE;
        Set<ActionReplay.Outcome> failOn = ReplayReport.FAIL_ON_ANY_CHANGE;
        try {
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (flag.equals("--json")) {
                    json = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(flag + " needs a value");
                }
                String value = args[++i];
                switch (flag) {
                    case "--store": store = value; break;
                    case "--dump": dump = value; break;
                    case "--kafka": kafka = value; break;
                    case "--topic": topic = value; break;
                    case "--config": clientConfig = value; break;
                    case "--candidate": candidateClass = value; break;
                    case "--key": selection = selection.key(value); break;
                    case "--action": selection = selection.action(value); break;
                    case "--limit": selection = selection.limit(Long.parseLong(value)); break;
                    case "--since": since = Long.parseLong(value); break;
                    case "--until": until = Long.parseLong(value); break;
                    case "--fail-on": failOn = outcomes(value); break;
                    default: throw new IllegalArgumentException("unknown flag " + flag);
                }
            }
            if ((store != null ? 1 : 0) + (dump != null ? 1 : 0) + (kafka != null ? 1 : 0) != 1 || candidateClass == null) {
                throw new IllegalArgumentException("one of --store, --dump and --kafka, and --candidate, are required");
            }
            if ((kafka != null) != (topic != null) || (clientConfig != null && kafka == null)) {
                throw new IllegalArgumentException("--kafka takes --topic (and --config) with it, and they need --kafka");
            }
        } catch (IllegalArgumentException e) {
            err.println("JournalReplayerMain: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        ReplayCandidate<?, ?> candidate;
        try {
            candidate = candidate(candidateClass);
        } catch (ReflectiveOperationException | ClassCastException e) {
            err.println("JournalReplayerMain: cannot make the candidate " + candidateClass + ": " + e);
            return 2;
        }
        RecordedActions recorded;
        try {
            recorded = store != null ? RecordedActions.store(Paths.get(store))
                    : dump != null ? RecordedActions.dump(Paths.get(dump))
                    : kafkaTopic(kafka, topic, clientConfig);
        } catch (ReflectiveOperationException e) {
            err.println("JournalReplayerMain: --kafka needs the Kafka jar (durable-journal-kafka) on the classpath: " + e);
            return 2;
        }
        ReplayReport report = JournalReplayer.of(candidate).replay(recorded, selection.completedBetween(since, until));
        out.print(json ? report.toJson() + "\n" : report.toTable());
        return report.exitStatus(failOn);
    }

    /** The Kafka jar's source (this jar does not depend on Kafka's client): {@code KafkaRecordedActions.topic}. */
    private static RecordedActions kafkaTopic(String servers, String topic, String clientConfig) throws ReflectiveOperationException {
        Class<?> type = Class.forName("io.durablejournal.kafka.KafkaRecordedActions", true, Thread.currentThread().getContextClassLoader());
        try {
            return (RecordedActions) type.getMethod("topic", String.class, String.class, String.class).invoke(null, servers, topic,
                    clientConfig);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
        }
    }

    @SuppressWarnings("unchecked")
    private static ReplayCandidate<?, ?> candidate(String className) throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
        Supplier<ReplayCandidate<?, ?>> supplier = (Supplier<ReplayCandidate<?, ?>>) type.getConstructor().newInstance();
        return supplier.get();
    }

    private static Set<ActionReplay.Outcome> outcomes(String list) {
        Set<ActionReplay.Outcome> outcomes = EnumSet.noneOf(ActionReplay.Outcome.class);
        for (String name : list.split(",")) {
            if (!name.isEmpty()) {
                outcomes.add(ActionReplay.Outcome.valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
            }
        }
        return outcomes;
    }
}
