package io.durablejournal.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.internal.Utf8;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One completed action a file store retained ({@link FileStoreOptions#retainCompleted}), or a
 * Kafka store ({@link #readLogDump}): its
 * address, when it completed, the plan digest the store was given, and its state as it completed,
 * with the journal ({@code callResults}) it completed with. Immutable.
 */
public final class RetainedAction {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final long number;
    private final long completedAtMillis;
    private final String planDigest;
    private final String key;
    private final long seq;
    private final String actionName;
    private final String event;
    private final ActionState state;

    private RetainedAction(JsonNode node) {
        number = node.get("number").asLong();
        completedAtMillis = node.get("completedAtMillis").asLong();
        planDigest = node.get("planDigest").isNull() ? null : node.get("planDigest").asText();
        key = node.get("key").asText();
        seq = node.get("seq").asLong();
        actionName = node.get("action").asText();
        event = node.get("event").asText();
        state = ActionStateSerde.deserialize(node.get("state").asText().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The retained actions of the file store in {@code dir}, oldest first (none without a
     * retention file). Reads without the store's lock and changes no file, so it is safe beside
     * the job that holds the store.
     */
    public static List<RetainedAction> read(Path dir) {
        Objects.requireNonNull(dir, "dir");
        return parse(StoreJni.readRetained(Utf8.encode(dir.toAbsolutePath().toString(), "dir")));
    }

    /**
     * The journals in flight in the file store in {@code dir}: its live entries that are not
     * completed, which a restore of the job replays, in the same form ({@link #getCompletedAtMillis}
     * is -1, {@link #getPlanDigest} null, {@link #getNumber} the entry's place in key order). Read
     * as {@link #read} reads: no lock, no file changed.
     */
    public static List<RetainedAction> readInFlight(Path dir) {
        Objects.requireNonNull(dir, "dir");
        return parse(StoreJni.readInFlight(Utf8.encode(dir.toAbsolutePath().toString(), "dir")));
    }

    /**
     * The retained actions in {@code dump}, a dump of a Kafka store's retained topic ({@code
     * KafkaJournalTool dump --retained}, or the same framing read from the topic), oldest first:
     * per record key the newest copy (as compaction keeps it), per action the last.
     */
    public static List<RetainedAction> readLogDump(byte[] dump) {
        Objects.requireNonNull(dump, "dump");
        return parse(LogStoreJni.readRetainedDump(dump));
    }

    private static List<RetainedAction> parse(byte[] json) {
        List<RetainedAction> actions = new ArrayList<>();
        try {
            for (JsonNode node : MAPPER.readTree(json)) {
                actions.add(new RetainedAction(node));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the native retained-actions JSON did not parse", e);
        }
        return Collections.unmodifiableList(actions);
    }

    /** Order of completion in its store. */
    public long getNumber() {
        return number;
    }

    /** When it completed (Unix milliseconds); -1 for a journal in flight ({@link #readInFlight}). */
    public long getCompletedAtMillis() {
        return completedAtMillis;
    }

    /** The store's {@link FileStoreOptions#planDigest} when the action completed, or null. */
    public String getPlanDigest() {
        return planDigest;
    }

    /** The business key with its type, as the inspection tool prints it: {@code str:user-1}, {@code long:42}. */
    public String getKey() {
        return key;
    }

    public long getSeq() {
        return seq;
    }

    public String getActionName() {
        return actionName;
    }

    /** The triggering event's identity: {@code occ:<occurrence id>} or {@code attrs:<hex digest>}. */
    public String getEvent() {
        return event;
    }

    /** The state as the action completed: completed, with its calls, memory updates and outputs. */
    public ActionState getState() {
        return state;
    }

    @Override
    public String toString() {
        return "RetainedAction{#" + number + " " + key + " seq " + seq + " " + actionName + ", "
                + state.getCallResults().size() + " calls}";
    }
}
