package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One action execution's record: its trigger, the memory updates and output events it produced,
 * and the journal of its calls.
 *
 * <p>Event and memory-update bodies (and top-level fields this version does not know) are kept as
 * the JSON text Flink Agents wrote, with their {@code @class} type property: this library does not
 * interpret them, and a record comes back with every number, string and key order exactly as it
 * was read. The {@code ...Json} getters return that text; the {@link JsonNode} getters parse it
 * on each call (a copy: changing it does not change the record), exactly: a {@code -0.0} set
 * comes back as {@code -0.0}.
 *
 * <p>Every record is one the journal accepts: a body set here is checked by the native core's
 * reader where the record holds it, so a body nested deeper than an ActionState may nest (1000
 * levels with the record and its list, Jackson's limit) is refused by the setter, with the
 * journal's {@link JournalException.Code#MALFORMED_JSON} naming the limit, and never reaches a
 * {@link DurableExecutionContext}.
 */
public final class ActionState {
    private String taskEvent;
    private final List<String> sensoryMemoryUpdates = new ArrayList<>();
    private final List<String> shortTermMemoryUpdates = new ArrayList<>();
    private final List<String> outputEvents = new ArrayList<>();
    private final List<CallResult> callResults = new ArrayList<>();
    private boolean completed;
    /** Fields a newer writer added (e.g. {@code subagentResultEvents}): kept so a rewrite loses nothing. */
    private final Map<String, String> otherFields = new LinkedHashMap<>();
    /**
     * How many leading call results replay as recorded, as the native library found when it read
     * this record ({@link ActionStateSerde#deserialize}); 0 for a record built here, whose calls
     * the journal decides. Appending a call leaves those leading slots as they are.
     */
    private int hitCount;

    /** An empty record of an action that has not completed. */
    public ActionState() {}

    /** A read-only view of the journal; list position is the call index. */
    public List<CallResult> getCallResults() {
        return Collections.unmodifiableList(callResults);
    }

    public boolean isCompleted() {
        return completed;
    }

    /** The task event as a tree, or null; see {@link JsonBodies#tree} for how numbers are held. */
    public JsonNode getTaskEvent() {
        return taskEvent == null ? null : JsonBodies.tree(taskEvent);
    }

    /** The task event's JSON exactly as recorded, or null. */
    public String getTaskEventJson() {
        return taskEvent;
    }

    /** @throws JournalException MALFORMED_JSON when the body is not one a record may hold (see the class doc) */
    public void setTaskEvent(JsonNode taskEvent) {
        this.taskEvent = taskEvent == null || taskEvent.isNull() ? null : JsonBodies.text(taskEvent, JsonBodies.Place.FIELD);
    }

    public List<JsonNode> getSensoryMemoryUpdates() {
        return JsonBodies.trees(sensoryMemoryUpdates);
    }

    public List<String> getSensoryMemoryUpdatesJson() {
        return Collections.unmodifiableList(sensoryMemoryUpdates);
    }

    public List<JsonNode> getShortTermMemoryUpdates() {
        return JsonBodies.trees(shortTermMemoryUpdates);
    }

    public List<String> getShortTermMemoryUpdatesJson() {
        return Collections.unmodifiableList(shortTermMemoryUpdates);
    }

    public List<JsonNode> getOutputEvents() {
        return JsonBodies.trees(outputEvents);
    }

    public List<String> getOutputEventsJson() {
        return Collections.unmodifiableList(outputEvents);
    }

    /** Top-level fields this version does not know, name to JSON text, in the order read. */
    public Map<String, String> getOtherFieldsJson() {
        return Collections.unmodifiableMap(otherFields);
    }

    /** @throws JournalException MALFORMED_JSON when the body is not one a record may hold (see the class doc) */
    public void addSensoryMemoryUpdate(JsonNode update) {
        sensoryMemoryUpdates.add(JsonBodies.text(Objects.requireNonNull(update, "update"), JsonBodies.Place.LIST_ELEMENT));
    }

    /** @throws JournalException MALFORMED_JSON when the body is not one a record may hold (see the class doc) */
    public void addShortTermMemoryUpdate(JsonNode update) {
        shortTermMemoryUpdates.add(JsonBodies.text(Objects.requireNonNull(update, "update"), JsonBodies.Place.LIST_ELEMENT));
    }

    /** @throws JournalException MALFORMED_JSON when the body is not one a record may hold (see the class doc) */
    public void addOutputEvent(JsonNode event) {
        outputEvents.add(JsonBodies.text(Objects.requireNonNull(event, "event"), JsonBodies.Place.LIST_ELEMENT));
    }

    public void addCallResult(CallResult callResult) {
        callResults.add(Objects.requireNonNull(callResult, "callResult"));
    }

    /** Marks the action completed; a completed record never carries the journal. */
    public void markCompleted() {
        completed = true;
        callResults.clear();
        hitCount = 0;
    }

    /**
     * A copy that later changes to this record do not reach (bodies are immutable text and slots
     * immutable objects, payloads included, so copying the lists suffices).
     */
    ActionState copy() {
        ActionState copy = new ActionState();
        copy.taskEvent = taskEvent;
        copy.sensoryMemoryUpdates.addAll(sensoryMemoryUpdates);
        copy.shortTermMemoryUpdates.addAll(shortTermMemoryUpdates);
        copy.outputEvents.addAll(outputEvents);
        copy.callResults.addAll(callResults);
        copy.completed = completed;
        copy.otherFields.putAll(otherFields);
        copy.hitCount = hitCount;
        return copy;
    }

    // Raw access for ActionStateSerde: the JSON text of bodies the native core has checked.

    void setTaskEventJson(String json) {
        taskEvent = json;
    }

    List<String> sensoryMemoryUpdatesJson() {
        return sensoryMemoryUpdates;
    }

    List<String> shortTermMemoryUpdatesJson() {
        return shortTermMemoryUpdates;
    }

    List<String> outputEventsJson() {
        return outputEvents;
    }

    List<CallResult> callResults() {
        return callResults;
    }

    /** See {@link #hitCount}. */
    int hitCount() {
        return hitCount;
    }

    void setHitCount(int hitCount) {
        this.hitCount = hitCount;
    }

    Map<String, String> otherFieldsJson() {
        return otherFields;
    }

    void setCompleted(boolean completed) {
        this.completed = completed;
    }

    /** Equal records hold the same JSON text (both are written compactly, as Jackson writes). */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ActionState)) {
            return false;
        }
        ActionState other = (ActionState) o;
        return completed == other.completed
                && Objects.equals(taskEvent, other.taskEvent)
                && sensoryMemoryUpdates.equals(other.sensoryMemoryUpdates)
                && shortTermMemoryUpdates.equals(other.shortTermMemoryUpdates)
                && outputEvents.equals(other.outputEvents)
                && callResults.equals(other.callResults)
                && otherFields.equals(other.otherFields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(taskEvent, sensoryMemoryUpdates, shortTermMemoryUpdates, outputEvents, callResults, completed, otherFields);
    }

    @Override
    public String toString() {
        return "ActionState{callResults=" + callResults + ", completed=" + completed + "}";
    }
}
