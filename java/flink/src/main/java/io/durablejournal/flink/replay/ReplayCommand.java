package io.durablejournal.flink.replay;

import io.durablejournal.DivergencePolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The arguments every replay command takes (docs/replay.md): where the recorded actions are
 * ({@code --store dir}, {@code --dump file}, or {@code --kafka servers --topic t [--config file]}), the candidate, the
 * selection ({@code --key}, {@code --action}, {@code --limit}, {@code --since}, {@code --until}),
 * stubs ({@code --stub <call id>=<JSON value or @file>}, repeatable), {@code --plan-restore
 * <WARN|CUT|FAIL>} (plan a restore of a store's journals in flight instead of replaying completed
 * actions), {@code --json} and {@code --fail-on}; and how a command prints its report and exits.
 * Shared by {@link JournalReplayerMain} and the Flink Agents replayer's command. Immutable.
 */
public final class ReplayCommand {
    /** Exit status for bad arguments. */
    public static final int BAD_ARGUMENTS = 2;

    private final RecordedActions recorded;
    private final String candidate;
    private final boolean json;
    private final ReplaySelection selection;
    private final Set<ActionReplay.Outcome> failOn;
    private final Map<String, String> stubs;
    /** The store directory of {@code --store}, or null. */
    private final Path store;
    private final DivergencePolicy restorePolicy;

    private ReplayCommand(RecordedActions recorded, String candidate, boolean json, ReplaySelection selection,
            Set<ActionReplay.Outcome> failOn, Map<String, String> stubs, Path store, DivergencePolicy restorePolicy) {
        this.recorded = recorded;
        this.candidate = candidate;
        this.json = json;
        this.selection = selection;
        this.failOn = failOn;
        this.stubs = Collections.unmodifiableMap(stubs);
        this.store = store;
        this.restorePolicy = restorePolicy;
    }

    /** Gives a candidate a stub of a call id, as JSON text (the candidate's {@code withStubJson}). */
    @FunctionalInterface
    public interface StubGiver<C> {
        C withStubJson(C candidate, String callId, String json);
    }

    /** Makes a command's candidate from the class its candidate flag names. */
    @FunctionalInterface
    public interface CandidateMaker<C> {
        /** @throws IllegalArgumentException or ReflectiveOperationException when the class makes no candidate */
        C make(String className) throws ReflectiveOperationException;
    }

    /**
     * What a replay command's {@code main} does: reads {@code args}, makes the candidate, replays
     * and prints the report to {@code out}; messages to {@code err}. Returns the exit status: 0 or
     * 1 by {@code --fail-on}, {@link #BAD_ARGUMENTS} for bad arguments or a class that makes no
     * candidate.
     *
     * @param command the command's name, for its messages
     */
    public static <C> int run(String command, String candidateFlag, String[] args, PrintStream out, PrintStream err,
            CandidateMaker<C> maker, java.util.function.BiFunction<C, ReplayCommand, ReplayReport> replay) {
        ReplayCommand parsed;
        try {
            parsed = parse(args, candidateFlag);
        } catch (IllegalArgumentException e) {
            err.println(command + ": " + e.getMessage());
            err.println(usage(command, candidateFlag));
            return BAD_ARGUMENTS;
        }
        C candidate;
        try {
            candidate = maker.make(parsed.candidate());
        } catch (ReflectiveOperationException | RuntimeException e) {
            err.println(command + ": cannot make the candidate " + parsed.candidate() + ": " + e);
            return BAD_ARGUMENTS;
        }
        return parsed.print(replay.apply(candidate, parsed), out);
    }

    /** The usage line of a command named {@code command} whose candidate is given with {@code candidateFlag}. */
    public static String usage(String command, String candidateFlag) {
        return "usage: " + command + " (--store <dir> | --dump <file> | --kafka <servers> --topic <t> [--config <client.properties>]) "
                + candidateFlag + " <class> [--key k] [--action name] [--limit n]"
                + " [--since ms] [--until ms] [--stub callId=json|@file]... [--plan-restore WARN|CUT|FAIL] [--json]"
                + " [--fail-on outcome,...]";
    }

    /**
     * Reads {@code args}; {@code candidateFlag} names the candidate's flag ({@code --candidate},
     * {@code --agent}).
     *
     * @throws IllegalArgumentException for an unknown flag, a flag without its value, a value that
     *     does not parse, not exactly one of {@code --store}, {@code --dump} and {@code --kafka}, a
     *     missing candidate, or {@code --kafka} without the Kafka jar on the class path
     */
    public static ReplayCommand parse(String[] args, String candidateFlag) {
        String store = null;
        String dump = null;
        String kafka = null;
        String topic = null;
        String clientConfig = null;
        String candidate = null;
        boolean json = false;
        ReplaySelection selection = ReplaySelection.all();
        long since = Long.MIN_VALUE;
        long until = Long.MAX_VALUE;
        Set<ActionReplay.Outcome> failOn = ReplayReport.FAIL_ON_ANY_CHANGE;
        Map<String, String> stubs = new LinkedHashMap<>();
        DivergencePolicy restorePolicy = null;
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
            if (flag.equals(candidateFlag)) {
                candidate = value;
                continue;
            }
            switch (flag) {
                case "--store": store = value; break;
                case "--dump": dump = value; break;
                case "--kafka": kafka = value; break;
                case "--topic": topic = value; break;
                case "--config": clientConfig = value; break;
                case "--key": selection = selection.key(value); break;
                case "--action": selection = selection.action(value); break;
                case "--limit": selection = selection.limit(Long.parseLong(value)); break;
                case "--since": since = Long.parseLong(value); break;
                case "--until": until = Long.parseLong(value); break;
                case "--fail-on": failOn = outcomes(value); break;
                case "--stub": stub(value, stubs); break;
                case "--plan-restore": restorePolicy = policy(value); break;
                default: throw new IllegalArgumentException("unknown flag " + flag);
            }
        }
        if ((store != null ? 1 : 0) + (dump != null ? 1 : 0) + (kafka != null ? 1 : 0) != 1 || candidate == null) {
            throw new IllegalArgumentException("one of --store, --dump and --kafka, and " + candidateFlag + ", are required");
        }
        if ((kafka != null) != (topic != null) || (clientConfig != null && kafka == null)) {
            throw new IllegalArgumentException("--kafka takes --topic (and --config) with it, and they need --kafka");
        }
        if (restorePolicy != null && store == null) {
            throw new IllegalArgumentException("--plan-restore plans the journals in flight of a file store: give --store");
        }
        if (restorePolicy != null && (since != Long.MIN_VALUE || until != Long.MAX_VALUE)) {
            throw new IllegalArgumentException("--since and --until select completed actions by their completion time;"
                    + " --plan-restore plans the journals in flight, which have none");
        }
        RecordedActions recorded = store != null ? RecordedActions.store(Paths.get(store))
                : dump != null ? RecordedActions.dump(Paths.get(dump))
                : kafkaTopic(kafka, topic, clientConfig);
        return new ReplayCommand(recorded, candidate, json, selection.completedBetween(since, until), failOn, stubs,
                store == null ? null : Paths.get(store), restorePolicy);
    }

    /** {@code callId=json} or {@code callId=@file} (the file holds the JSON), checked as one JSON value. */
    private static void stub(String value, Map<String, String> stubs) {
        int equals = value.indexOf('=');
        if (equals <= 0) {
            throw new IllegalArgumentException("--stub needs <call id>=<JSON value or @file>, not " + value);
        }
        String callId = value.substring(0, equals);
        String json = value.substring(equals + 1);
        if (json.startsWith("@")) {
            try {
                json = new String(Files.readAllBytes(Paths.get(json.substring(1))), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("--stub " + callId + ": cannot read " + json.substring(1) + ": " + e, e);
            }
        }
        try {
            RecordedValueStub.of(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--stub " + callId + ": " + e.getMessage(), e);
        }
        if (stubs.put(callId, json) != null) {
            throw new IllegalArgumentException("--stub " + callId + " is given twice");
        }
    }

    private static DivergencePolicy policy(String name) {
        try {
            return DivergencePolicy.valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--plan-restore takes WARN, CUT or FAIL (the job's divergence policy), not "
                    + name);
        }
    }

    /** Where the recorded actions are read from. */
    public RecordedActions recorded() {
        return recorded;
    }

    /** The candidate's class name, as given. */
    public String candidate() {
        return candidate;
    }

    public ReplaySelection selection() {
        return selection;
    }

    /** The {@code --stub} values by call id, as JSON text, in the order given. */
    public Map<String, String> stubs() {
        return stubs;
    }

    /** {@code candidate} with every {@code --stub} given through {@code giver}. */
    public <C> C withStubs(C candidate, StubGiver<C> giver) {
        C stubbed = candidate;
        for (Map.Entry<String, String> stub : stubs.entrySet()) {
            stubbed = giver.withStubJson(stubbed, stub.getKey(), stub.getValue());
        }
        return stubbed;
    }

    /** The divergence policy {@code --plan-restore} names, or null: replay the completed actions. */
    public DivergencePolicy restorePolicy() {
        return restorePolicy;
    }

    /** The store directory {@code --store} names (whose journals in flight {@code --plan-restore} plans), or null. */
    public Path store() {
        return store;
    }

    /** Prints the report (JSON with {@code --json}, else the table); returns the exit status, by {@code --fail-on}. */
    public int print(ReplayReport report, PrintStream out) {
        out.print(json ? report.toJson() + "\n" : report.toTable());
        return report.exitStatus(failOn);
    }

    /** The Kafka jar's source (this jar does not depend on Kafka's client): {@code KafkaRecordedActions.topic}. */
    private static RecordedActions kafkaTopic(String servers, String topic, String clientConfig) {
        Class<?> type;
        try {
            type = Class.forName("io.durablejournal.kafka.KafkaRecordedActions", true, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("--kafka needs the Kafka jar (durable-journal-kafka) on the class path", e);
        }
        try {
            return (RecordedActions) type.getMethod("topic", String.class, String.class, String.class).invoke(null, servers, topic,
                    clientConfig);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the Kafka jar's KafkaRecordedActions.topic cannot be called", e);
        }
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
